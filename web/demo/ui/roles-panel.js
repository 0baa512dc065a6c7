// The page's head-role panel: every head's role scores in a table that sorts by any column, with
// a switch per head to turn it off, a plain sentence per role ("What does this mean?"), and the
// two ways of measuring: on the sentence on screen (headRoles, live), or over the probe set
// (measureHeadRoles in the worker, with a progress bar and Cancel). In the probe-set mode it also
// lists each syntactic relation's best head beside the best fixed-offset baseline. It draws what
// main.js gives it and reports clicks; it computes nothing and keeps only the table's sort order.
// Token and role names reach the page as text only.
import { ROLES } from '../../src/analysis/head-roles.js';
import { el } from '../../src/views/dom.js';

const DIGITS = 3;

/**
 * Builds the panel in `root` (index.html's #roles). `onMeasure()` asks for the probe-set measure,
 * `onCancel()` stops it, `onToggleHead(layer, head)` switches a head off or on, and
 * `onDownload('csv' | 'json')` saves the table on screen.
 */
export function createRolesPanel(root, { onMeasure, onCancel, onToggleHead, onDownload }) {
  const $ = (id) => root.querySelector(`#${id}`);
  const dom = {
    measure: $('roles-measure'), start: $('roles-start'), bar: $('roles-bar'), done: $('roles-done'), cancel: $('roles-cancel'),
    summary: $('roles-summary'), meanings: $('roles-meanings'), table: $('roles-table'), relations: $('roles-relations'),
  };
  const state = { sort: { column: 'layer', descending: false }, shown: null, drawn: null };
  dom.start.addEventListener('click', onMeasure);
  dom.cancel.addEventListener('click', onCancel);
  for (const kind of ['csv', 'json']) $(`roles-${kind}`).addEventListener('click', () => onDownload(kind));

  /**
   * Draws `shown`: { mode: 'live' | 'probes', heads: [{ layer, head, scores, top }] | null,
   * relations (probe set only), relationMeanings, ablated: Set of "layer.head", measuring:
   * { done, total } | null, failed: string }.
   */
  function update(shown) {
    state.shown = shown;
    const probes = shown.mode === 'probes';
    dom.measure.hidden = !probes || Boolean(shown.heads);
    dom.start.hidden = Boolean(shown.measuring);
    dom.bar.hidden = dom.cancel.hidden = !shown.measuring;
    if (shown.measuring) {
      dom.bar.max = shown.measuring.total || 1;
      dom.bar.value = shown.measuring.done;
      dom.done.textContent = `${shown.measuring.done} of ${shown.measuring.total} runs`;
    } else {
      dom.done.textContent = shown.failed;
    }
    dom.summary.textContent = summary(shown);
    // A progress message changes none of the tables: they are kept, and the focus in them.
    const drawn = { mode: shown.mode, heads: shown.heads, relations: shown.relations, ablated: [...shown.ablated].join() };
    if (state.drawn && Object.keys(drawn).every((key) => drawn[key] === state.drawn[key])) return;
    state.drawn = drawn;
    showMeanings(shown);
    showTable(shown);
    showRelations(shown);
  }

  function summary({ mode, heads, sentences, runs, measuring, alignment }) {
    if (!heads && measuring) return 'Measuring every head over the probe set; the page stays usable meanwhile.';
    if (!heads) return mode === 'probes' ? 'Not measured yet for this model (the probe set measures an encoder–decoder\'s encoder heads).' : '';
    const named = heads.filter((h) => h.top).length;
    const where = mode === 'probes'
      ? `over ${sentences.measured} probe sentences and ${runs.runs} runs of ${runs.runLength} random tokens written twice`
      : 'on the sentence above';
    const measured = `Measured ${where}: ${named} of ${heads.length} heads have a clear role (a score at or above its threshold).`;
    if (!alignment) return measured;
    if (alignment.diagonal === null) return `${measured} Cross-attention: nothing written yet pairs with a source word, so no head has an align score.`;
    // A word order alone would pair this share of the target words as the alignment does.
    return `${measured} Cross-attention: a head that read only the diagonal source word (the word order alone) would score ` +
      `${alignment.diagonal.toFixed(2)} as the align baseline for these lengths.`;
  }

  function showMeanings({ relationMeanings, meanings = ROLES }) {
    const items = Object.entries(meanings).flatMap(([role, { threshold, meaning, cite }]) =>
      [el('dt', '', role), el('dd', '', `This head ${meaning}${cite ? ` (${cite})` : ''}. A clear role from ${threshold} up.`)]);
    for (const [relation, text] of Object.entries(relationMeanings ?? {})) {
      items.push(el('dt', '', relation), el('dd', '', `${text}: the share of such pairs where one word attends most to ` +
        'the other (over the probe set only; compare it with the fixed-offset baseline below).'));
    }
    dom.meanings.replaceChildren(...items);
  }

  /** The columns: layer, head, top role, top score, each score, and the switch. */
  function columnsOf(heads) {
    return heads?.length ? Object.keys(heads[0].scores) : Object.keys(ROLES);
  }

  function sortValue(row, column) {
    if (column === 'layer') return row.layer * 1e4 + row.head;
    if (column === 'head') return row.head * 1e4 + row.layer;
    if (column === 'top') return row.top ? row.top.role : '';
    if (column === 'topScore') return row.top?.score ?? -1;
    return row.scores[column] ?? -1;
  }

  function showTable({ heads, ablated }) {
    const columns = columnsOf(heads);
    const header = el('tr');
    const all = [['layer', 'Layer'], ['head', 'Head'], ['top', 'Top role'], ['topScore', 'Score'], ...columns.map((c) => [c, c])];
    for (const [column, label] of all) {
      const th = el('th');
      th.scope = 'col';
      const sorted = state.sort.column === column;
      th.setAttribute('aria-sort', sorted ? (state.sort.descending ? 'descending' : 'ascending') : 'none');
      const button = el('button', 'roles-sort', `${label}${sorted ? (state.sort.descending ? ' ▼' : ' ▲') : ''}`);
      button.type = 'button';
      button.addEventListener('click', () => {
        // A score column sorts highest first; a second click turns it round.
        const numeric = !['layer', 'head', 'top'].includes(column);
        state.sort = sorted ? { column, descending: !state.sort.descending } : { column, descending: numeric };
        showTable(state.shown);
        dom.table.querySelector(`th:nth-child(${all.findIndex(([c]) => c === column) + 1}) button`).focus();
      });
      th.append(button);
      header.append(th);
    }
    header.append(el('th', '', 'Switched off'));
    const body = el('tbody');
    const { column, descending } = state.sort;
    const rows = [...(heads ?? [])].sort((a, b) => {
      const [x, y] = [sortValue(a, column), sortValue(b, column)];
      const order = x < y ? -1 : x > y ? 1 : a.layer - b.layer || a.head - b.head;
      return descending ? -order : order;
    });
    for (const row of rows) {
      const tr = el('tr');
      const off = ablated.has(`${row.layer}.${row.head}`);
      if (off) tr.className = 'roles-off';
      tr.append(el('td', '', String(row.layer + 1)), el('td', '', String(row.head + 1)),
        el('td', '', row.top?.role ?? '–'), el('td', '', row.top ? row.top.score.toFixed(DIGITS) : '–'));
      for (const c of columns) {
        const v = row.scores[c];
        const td = el('td', v !== null && row.top?.role === c ? 'roles-top' : '', v === null ? '–' : v.toFixed(DIGITS));
        tr.append(td);
      }
      const toggle = el('button', 'roles-toggle', off ? 'off' : 'on');
      toggle.type = 'button';
      toggle.setAttribute('aria-pressed', String(off));
      toggle.setAttribute('aria-label', `Layer ${row.layer + 1} head ${row.head + 1}: switch ${off ? 'on' : 'off'}`);
      toggle.addEventListener('click', () => onToggleHead(row.layer, row.head));
      const cell = el('td');
      cell.append(toggle);
      tr.append(cell);
      body.append(tr);
    }
    const thead = el('thead');
    thead.append(header);
    dom.table.replaceChildren(thead, body);
  }

  function showRelations({ mode, relations }) {
    dom.relations.hidden = mode !== 'probes' || !relations;
    if (dom.relations.hidden) return dom.relations.replaceChildren();
    const table = el('table');
    const head = el('tr');
    for (const text of ['Relation', 'Arcs', 'Best head', 'Its score', 'Best fixed offset', 'Its score', 'Head − baseline']) head.append(el('th', '', text));
    // → : the first word of the relation as named attends to the second; ← : the other way.
    const arrow = (direction) => (direction === 'from' ? '→' : '←');
    const thead = el('thead');
    thead.append(head);
    const body = el('tbody');
    for (const [name, { arcs, best, baseline }] of Object.entries(relations)) {
      const tr = el('tr');
      const offset = (o) => `${o > 0 ? '+' : ''}${o} word${Math.abs(o) === 1 ? '' : 's'}`;
      const diff = best && baseline ? best.score - baseline.score : null;
      tr.append(el('td', '', name), el('td', '', String(arcs)),
        el('td', '', best ? `L${best.layer + 1} H${best.head + 1} ${arrow(best.direction)}` : '–'),
        el('td', '', best ? best.score.toFixed(DIGITS) : '–'),
        el('td', '', baseline ? `${offset(baseline.offset)} ${arrow(baseline.direction)}` : '–'),
        el('td', '', baseline ? baseline.score.toFixed(DIGITS) : '–'),
        el('td', diff !== null && diff > 0 ? 'roles-above' : '', diff === null ? '–' : `${diff >= 0 ? '+' : ''}${diff.toFixed(DIGITS)}`));
      body.append(tr);
    }
    table.append(thead, body);
    const note = el('p', 'roles-note', 'A head beats the baseline only when its score is higher than the best fixed offset ' +
      '(for example "always the previous word"). → : the first word of the relation attends to the second; ← : the reverse.');
    dom.relations.replaceChildren(el('h3', '', 'Syntactic relations against the fixed-offset baseline'), note, table);
  }

  return { update };
}
