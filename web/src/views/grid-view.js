// Every head of one layer as small multiples: one small heatmap per head, on one shared scale, so
// the heads' patterns can be compared at a glance. Hovering a heatmap reads out a cell; choosing a
// head (click, or Enter on its focused card) calls onSelectHead so the page can enlarge it.
// Given rows (one per layer) instead, it draws every layer's heads, a row each, as thumbnails:
// BERT-base's 144 heads at a glance. Each thumbnail draws its whole matrix, one pixel per value,
// scaled down by the canvas; it is a picture to compare, read out by hovering. That is the model
// view: a row may carry each head's top role ({ role, score } or null), shown as a badge under
// its thumbnail and in the hover readout, and which heads are switched off. Given onToggleHead,
// each badge is a button that switches its head off and on.
// Query heads that share one key/value head (grouped-query attention: data.kvHeads gives each
// query head's) are drawn together under a label, and a sliding-window layer (data.window, or a
// row's window) cross-hatches the keys beyond its window.
import { createLegend, weightScale } from './colormap.js';
import { axes, el, maskKey, weightText } from './dom.js';
import { MatrixCanvas } from './matrix-canvas.js';
import { paintQueue } from './paint-queue.js';

const GAP = 12; // CSS px between cards

const THUMB_MIN = 56; // CSS px: the smallest thumbnail of the every-layer grid

// Redrawing BERT-base's 144 heatmaps at 128 tokens takes about 300 ms, far more than a frame: the
// heatmaps are painted through paint-queue.js, a slice a frame, and an update abandons what is
// left of the one before. Labels and badges change at once.

// A role's name on a badge as narrow as a thumbnail; the hover readout and the title say it whole.
const SHORT_ROLE = { previous: 'prev', punctuation: 'punct', duplicate: 'dup', induction: 'induct' };

/** The number of heads of a row of the every-layer grid. */
const headsOf = (row) => row.heads ?? row.weights.length;

/** "induction 0.931", or "no clear role" for null. */
function roleText(top, digits = 3) {
  return top ? `${top.role} ${top.score.toFixed(digits)}` : 'no clear role';
}

export function createGridView(root, { onSelectHead = () => {}, onToggleHead = null } = {}) {
  // data: { tokens, keyTokens?, weights: per head (nQueries × nKeys), title, kvHeads?, window?, row? }, or { tokens, rows:
  // [{ title, weights, heads?, roles?: ({ role, score } | null) per head, ablated?: boolean per head, window? }], title, kvHeads?, row? };
  // row: a query row marked in every head, the others dimmed. A row whose weights are null (its
  // `heads` gives their number) is still to come: its thumbnails keep what they showed, and the
  // grid stays aria-busy.
  const state = { data: null, cards: [], shape: '' };
  const paints = paintQueue(root);
  const scale = weightScale();
  root.replaceChildren();
  root.classList.add('mh-grid');
  const title = el('h3');
  const cards = el('div', 'mh-grid-cards');
  const readout = el('p', 'mh-grid-readout', 'Hover a heatmap to read a weight; choose a head to enlarge it.');
  const masked = maskKey();
  root.append(title, cards, readout, createLegend(scale), masked.element);

  /** The query row marked in every head (data.row), as a list for MatrixCanvas.mark. */
  const markedRows = () => (state.data?.row == null ? [] : [state.data.row]);

  // One card: head `head` of `layer` (a row of the every-layer grid), or of the one layer shown.
  function card(head, layer = null) {
    const button = el('button', 'mh-grid-card');
    button.type = 'button';
    const name = layer === null ? `head ${head + 1}` : `layer ${layer + 1} head ${head + 1}`;
    const matrix = new MatrixCanvas({ label: name, square: true, maxCell: 24 });
    const shown = { axes: { queries: [], keys: [] } }; // the tokens of the weights the matrix shows
    button.append(matrix.element, el('span', '', layer === null ? name : `${head + 1}`));
    button.addEventListener('click', () => onSelectHead(head, layer));
    // The head's name, its role and whether it is off, then the cell under the pointer.
    const about = () => {
      const row = layer === null ? null : state.data.rows[layer];
      const role = row?.roles ? `, ${roleText(row.roles[head])}` : '';
      return `${name}${role}${row?.ablated?.[head] ? ' (switched off)' : ''}`;
    };
    button.addEventListener('pointermove', (event) => {
      // What the card shows, which for a few frames after an update may be the update before.
      const cell = matrix.cellAt(event.clientX, event.clientY);
      matrix.mark({ rows: markedRows(), cells: cell ? [[cell.row, cell.col]] : [] });
      readout.textContent = cell ? `${about()}: ${weightText(shown.axes, matrix.values, cell.row, cell.col)}` : about();
    });
    button.addEventListener('focus', () => { readout.textContent = about(); });
    button.addEventListener('pointerleave', () => matrix.mark({ rows: markedRows(), dim: true }));
    if (layer === null) return { element: button, button, matrix, shown, head, layer };
    // The every-layer grid: a badge under the thumbnail, a toggle when the page can switch heads off.
    const badge = el(onToggleHead ? 'button' : 'span', 'mh-role-badge');
    if (onToggleHead) {
      badge.type = 'button';
      badge.addEventListener('click', () => onToggleHead(layer, head));
    }
    const element = el('div', 'mh-grid-cell');
    element.append(button, badge);
    return { element, button, matrix, shown, head, layer, badge, about };
  }

  /** (Re)builds the cards when the number of layers or heads changes. */
  function build(data) {
    const kv = data.kvHeads ?? [];
    const shape = `${data.rows ? `rows ${data.rows.map(headsOf)}` : `heads ${data.weights.length}`} kv ${kv}`;
    if (state.shape === shape) return;
    state.shape = shape;
    if (!data.rows) {
      state.cards = data.weights.map((_, h) => card(h));
      cards.className = 'mh-grid-cards';
      cards.replaceChildren(...grouped(state.cards, kv, false));
      return;
    }
    state.cards = [];
    cards.className = 'mh-grid-layers';
    cards.replaceChildren(...data.rows.map((row, l) => {
      const group = el('div', 'mh-grid-layer');
      group.setAttribute('role', 'group');
      group.setAttribute('aria-label', row.title);
      const line = el('div', 'mh-grid-cards');
      const rowCards = Array.from({ length: headsOf(row) }, (_, h) => card(h, l));
      state.cards.push(...rowCards);
      line.append(...grouped(rowCards, kv, true));
      group.append(el('h4', '', row.title), line);
      return group;
    }));
  }

  /**
   * The cards' elements, in groups of the query heads that share a key/value head, each under its
   * label, when `kv` (each head's key/value head) has fewer of them than heads; else as they are.
   */
  function grouped(list, kv, compact) {
    const kvCount = new Set(kv).size;
    if (kv.length !== list.length || kvCount === list.length) return list.map((c) => c.element);
    return [...new Set(kv)].map((k) => {
      const members = list.filter((c) => kv[c.head] === k);
      const first = members[0].head + 1, last = members[members.length - 1].head + 1;
      const heads = first === last ? `head ${first}` : `heads ${first}–${last}`;
      const group = el('div', 'mh-kv-group');
      group.setAttribute('role', 'group');
      const label = compact ? `KV ${k + 1}` : `${heads} share key/value head ${k + 1}`;
      group.setAttribute('aria-label', `Query ${heads}, which share key/value head ${k + 1}`);
      const cardsOfGroup = el('div', 'mh-grid-cards');
      cardsOfGroup.append(...members.map((c) => c.element));
      group.append(el('span', 'mh-kv-label', label), cardsOfGroup);
      if (compact) group.title = `Query ${heads} share key/value head ${k + 1}`;
      return group;
    });
  }

  function update(data) {
    state.data = data;
    title.textContent = data.title ?? '';
    masked.show({ causal: Boolean(data.causal), window: data.window ?? data.rows?.find((r) => r.window != null)?.window ?? null });
    build(data);
    const { queries, keys } = axes(data);
    const groups = new Set(data.kvHeads ?? []).size;
    // Each group of query heads sharing a key/value head takes a border and padding of its own.
    const width = Math.max(120, root.clientWidth - (groups > 1 ? groups * 14 : 0));
    let side;
    if (data.rows) {
      // Every head of a layer on one line where they fit (12 across from about 900 px).
      const heads = Math.max(...data.rows.map(headsOf));
      const across = Math.max(1, Math.min(heads, Math.floor((width + GAP) / (THUMB_MIN + 10 + GAP))));
      side = Math.max(THUMB_MIN - 10, Math.floor((width - GAP * (across - 1)) / across) - 10);
    } else {
      // Two columns on a phone, up to four across on a wide screen.
      const heads = data.weights.length;
      const across = Math.max(2, Math.min(heads, 4, Math.floor(width / 170)));
      side = Math.floor((width - GAP * (across - 1)) / across) - 10;
    }
    for (const c of state.cards) {
      const { button, head, layer } = c;
      const where = layer === null ? `${data.title ?? ''} head ${head + 1}` : `Layer ${layer + 1} head ${head + 1}`;
      const label = `${where}: enlarge`.trim();
      if (button.getAttribute('aria-label') !== label) button.setAttribute('aria-label', label);
      if (c.badge) showBadge(c, data.rows[layer], side);
    }
    // A thumbnail is painted again only when what it shows changes: a streamed run's rows come
    // one update at a time, and the final answer brings only the roles.
    const comes = (c) => c.layer !== null && data.rows[c.layer].weights === null;
    const ready = state.cards.filter((c) => !comes(c));
    const waiting = state.cards.filter(comes);
    paints.start(ready.map((c) => () => {
      const { matrix, shown, head, layer } = c;
      const weights = (layer === null ? data.weights : data.rows[layer].weights)[head];
      const window = (layer === null ? data.window : data.rows[layer].window) ?? null;
      const picture = [weights, queries.length, keys.length, side, Boolean(data.causal), window, data.queryOffset ?? 0];
      if (!c.picture?.every((value, i) => value === picture[i])) {
        matrix.draw(weights, queries.length, keys.length, scale,
          { maxWidth: side, maxHeight: side, causal: Boolean(data.causal), window, queryOffset: data.queryOffset ?? 0 });
        c.picture = picture;
      }
      matrix.mark({ rows: markedRows(), dim: true });
      shown.axes = axes(data);
    }), ready.map((c) => c.element), waiting.map((c) => c.element));
  }

  /**
   * A card's badge: the head's top role (or a dash), marked when the head is switched off. Written
   * only when it changes: the model view updates at each layer a streamed run brings.
   */
  function showBadge(c, row, side) {
    const { element, badge, button, head, about } = c;
    const top = row.roles?.[head] ?? null;
    const off = Boolean(row.ablated?.[head]);
    const shows = [top?.role, top?.score, off, Boolean(row.roles), side, about()].join(' ');
    if (c.shows === shows) return;
    c.shows = shows;
    element.classList.toggle('mh-off', off);
    badge.style.display = !row.roles && !onToggleHead ? 'none' : ''; // `all: unset` undoes [hidden]
    badge.style.maxWidth = `${side + 4}px`;
    // As narrow as a thumbnail of BERT-base's 12 across: "induct .93"; "off" says the rest in its title.
    badge.textContent = off ? 'off' : top ? `${SHORT_ROLE[top.role] ?? top.role} ${top.score.toFixed(2).replace(/^0/, '')}` : '–';
    badge.title = about();
    button.title = about();
    if (onToggleHead) {
      badge.setAttribute('aria-pressed', String(off));
      badge.setAttribute('aria-label', `${about()}: switch ${off ? 'on' : 'off'}`);
    }
  }

  return {
    update,
    destroy() {
      paints.cancel();
      root.replaceChildren();
    },
  };
}

export const GRID_CSS = `
.mh-grid-cards { display: flex; flex-wrap: wrap; gap: ${GAP}px; }
.mh-grid-card { all: unset; cursor: pointer; display: flex; flex-direction: column; align-items: center; gap: 4px;
  padding: 4px; border: 1px solid var(--mh-border, #ccc); border-radius: 6px; }
.mh-grid-card:hover { border-color: var(--mh-accent, #0072b2); }
.mh-grid-card:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: 2px; }
.mh-grid-card span { font-size: 13px; }
.mh-grid-layers { display: flex; flex-direction: column; gap: 6px; }
.mh-grid-layer h4 { margin: 0 0 2px; font-size: 13px; font-weight: 600; }
.mh-grid-layers .mh-grid-cards { gap: ${GAP}px; }
.mh-grid-layers .mh-grid-card { padding: 2px; gap: 1px; }
.mh-grid-layers .mh-grid-card span { font-size: 11px; }
.mh-grid-cell { display: flex; flex-direction: column; align-items: center; gap: 2px; }
.mh-role-badge { all: unset; box-sizing: border-box; font-size: 11px; line-height: 1.3; padding: 0 4px; border-radius: 4px;
  border: 1px solid var(--mh-border, #ccc); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; text-align: center;
  font-variant-numeric: tabular-nums; }
button.mh-role-badge { cursor: pointer; }
button.mh-role-badge:hover { border-color: var(--mh-accent, #0072b2); }
button.mh-role-badge:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: 1px; }
.mh-off .mh-grid-card canvas { opacity: 0.3; }
.mh-off .mh-role-badge { border-color: #d55e00; color: #d55e00; }
.mh-kv-group { display: flex; flex-direction: column; gap: 4px; padding: 4px 6px 6px; border: 1px dashed var(--mh-border, #ccc);
  border-radius: 8px; }
.mh-kv-label { font-size: 12px; color: var(--mh-muted, #666); }
.mh-grid-layers .mh-kv-group { padding: 1px 3px 3px; gap: 1px; }
.mh-grid-layers .mh-kv-label { font-size: 10px; }
.mh-grid-readout { font-family: var(--mh-font-mono, ui-monospace, monospace); font-size: 13px; min-height: 1.4em; }
`;
