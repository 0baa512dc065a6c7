// The "Why?" view: why the model predicted a token at one position, in four blocks, each drawn when
// its data is there. Heads behind it: each head's, each MLP's, the embeddings' and the biases'
// part of the logit (direct logit attribution) on one diverging scale. Layer by layer: the logit
// lens, the likeliest token after each layer at each position. Patching: how much of the clean
// run's logit difference each head's output brings back into a corrupted run. Queries and keys:
// one head's query–key map, a canvas scatter (a DOM node per point would not stay smooth at 1024
// tokens), where hovering a query draws lines to the keys it attends most.
// It computes nothing (the model does; the page decides what to ask for) and prints no progress
// bar of its own. Choosing a head (click, Enter or Space on a cell or on a strongest head) calls
// onSelectHead(layer, head), counted from 0. The sentences, scales and shapes come from
// why-export.js, so the view and the files it exports say the same.
//
// data (every token untrusted text, shown as text only):
// { tokens, position, contributions | null, lens | null, patch | null, patching: { done, total } | null,
//   queryKeys | null, causal }; each part as Model's contributions(), logitLens(), patch() and
// queryKeyMap() give them, arranged by the page (see checkWhy in why-export.js for every field).
import { createLegend, formatNumber, hexColor, textColorOn } from './colormap.js';
import { el } from './dom.js';
import { clipText } from './export.js';
import {
  KEY_COLOR, lensHint, PATCH_HINT, QUERY_COLOR, contributionScale, headName, lensTip, logitText, oneLine, patchScale,
  patchText, probabilityScale, queryKeyTitle, quote, scatterPlace, signed, softcapText, strongestHeads, varianceText,
} from './why-export.js';

const LABEL_WIDTH = 84; // CSS px for "embeddings" and "layer 40" left of a map
const MIN_CELL = 14, MAX_CELL = 30; // CSS px per head: a 14 px cell is still a target a pointer can hit
const LENS_CHARS = 10; // a longer token keeps 9 characters and an ellipsis
const SCATTER_MIN = 220, SCATTER_MAX = 520, SCATTER_PAD = 12; // CSS px
const POINT = 3; // CSS px: a query's radius, and half a key's side
const HIT = 8; // CSS px: how near the pointer must come to a point to pick it
const MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

export function createWhyView(root, { onSelectHead = () => {} } = {}) {
  const state = {
    data: null,
    shown: {}, // per block, what it was last built from: rebuilt only when that changes, so focus stays
    tips: new WeakMap(), // element → its tooltip text
    places: new WeakMap(), // cell → { grid, row, col }: a grid is rows of cells, moved through by the arrow keys
    scatter: null, // the scatter's layout: { side, points: Float32Array (2n × 2) in CSS px, queries first, ink: the text colour }
    hover: null, // the point under the pointer or chosen by the keyboard: its index, queries first, keys after
    frame: 0,
  };
  root.replaceChildren();
  root.classList.add('mh-why');
  const blocks = {
    heads: block('heads', 'Heads behind it'),
    lens: block('lens', 'Layer by layer'),
    patch: block('patch', 'Patching'),
    qk: block('qk', ''),
  };
  // A sweep's progress, outside the patch block's body: it changes often, and the map it follows need not be rebuilt.
  const progress = el('p', 'mh-why-progress');
  blocks.patch.section.append(progress);
  // Why there is nothing to explain (a model without an LM head, a token that is not one, the toy layer).
  const message = el('p', 'mh-why-message');
  message.setAttribute('role', 'status');
  const tooltip = el('div', 'mh-tooltip');
  tooltip.hidden = true;
  tooltip.setAttribute('aria-hidden', 'true');
  const scatter = buildScatter();
  root.append(message, ...Object.values(blocks).map((b) => b.section), tooltip);

  const listeners = {
    click(event) {
      const cell = event.target.closest?.('[data-layer][data-head]');
      if (cell && root.contains(cell)) onSelectHead(Number(cell.dataset.layer), Number(cell.dataset.head));
    },
    pointerover: (event) => showTip(tipped(event.target)),
    pointerout: (event) => { if (!tipped(event.relatedTarget)) showTip(null); },
    focusin: (event) => {
      const place = state.places.get(event.target);
      if (place) rove(place.grid, event.target);
      showTip(tipped(event.target));
    },
    focusout: () => showTip(null),
    keydown(event) {
      const place = state.places.get(event.target);
      if (!place || !(event.key in MOVES)) return;
      event.preventDefault();
      const [dr, dc] = MOVES[event.key];
      const row = clamp(place.row + dr, place.grid.length);
      place.grid[row][clamp(place.col + dc, place.grid[row].length)].focus();
    },
  };
  for (const [type, fn] of Object.entries(listeners)) root.addEventListener(type, fn);

  function block(kind, heading) {
    const section = el('section', `mh-why-block mh-why-${kind}`);
    const title = el('h3', 'mh-why-title', heading);
    const body = el('div', 'mh-why-body');
    section.append(title, body);
    section.hidden = true;
    return { kind, section, title, body, grids: [] };
  }

  /** The nearest element at or above `node` (inside the view) that has a tooltip. */
  function tipped(node) {
    for (let n = node; n && n !== root; n = n.parentElement) if (state.tips.has(n)) return n;
    return null;
  }

  /** Shows `text` (an element's tip when an element is given) beside `box`, a client rectangle. */
  function showTip(target, text = state.tips.get(target), box = target?.getBoundingClientRect()) {
    tooltip.hidden = !text;
    if (!text) return;
    tooltip.textContent = text;
    const frame = root.getBoundingClientRect();
    let left = box.right - frame.left + 6;
    if (left + tooltip.offsetWidth > root.clientWidth) left = Math.max(0, box.left - frame.left - tooltip.offsetWidth - 6);
    tooltip.style.left = `${left}px`;
    tooltip.style.top = `${box.top - frame.top}px`;
  }

  /**
   * Fills `b`'s body with render()'s nodes when `inputs` differ from what it shows, or empties and
   * hides it when `present` is false. A cell that had focus gets it back in the new grid.
   */
  function show(b, present, inputs, render) {
    b.section.hidden = !present;
    if (!present) {
      state.shown[b.kind] = null;
      b.body.replaceChildren();
      return;
    }
    if (state.shown[b.kind]?.every((value, i) => value === inputs[i])) return;
    state.shown[b.kind] = inputs;
    const active = root.getRootNode().activeElement;
    const place = b.section.contains(active) ? state.places.get(active) : null;
    const at = place ? b.grids.indexOf(place.grid) : -1;
    b.grids = [];
    b.body.replaceChildren(...render(b));
    const rows = b.grids[at];
    if (rows) {
      const row = clamp(place.row, rows.length);
      rows[row][clamp(place.col, rows[row].length)].focus();
    }
  }

  /** Registers rows of cells as one arrow-key grid with a single tab stop (its first cell until another is focused). */
  function grid(b, rows) {
    rows.forEach((row, r) => row.forEach((cell, c) => {
      state.places.set(cell, { grid: rows, row: r, col: c });
      cell.tabIndex = r === 0 && c === 0 ? 0 : -1;
    }));
    b.grids.push(rows);
    return rows;
  }

  /** Makes `cell` its grid's one tab stop, so Tab leaves the grid and Shift+Tab comes back to it. */
  function rove(rows, cell) {
    for (const row of rows) for (const c of row) if (c.tabIndex === 0 && c !== cell) c.tabIndex = -1;
    cell.tabIndex = 0;
  }

  /** A colour cell of a heads map: a button named by `text`; a click on one with a layer and a head chooses that head. */
  function cell(scale, value, text, { layer = null, head = null } = {}) {
    const button = el('button', 'mh-why-cell');
    button.type = 'button';
    button.style.background = hexColor(scale, value);
    button.setAttribute('aria-label', text);
    button.dataset.value = String(value); // the number itself, for a script or a test that reads the map
    if (layer !== null) button.dataset.layer = String(layer);
    if (head !== null) button.dataset.head = String(head);
    state.tips.set(button, text);
    return button;
  }

  /**
   * A (layers × heads) map as a CSS grid of buttons with row labels and head numbers, and an extra
   * column (the MLPs) when given: { label, values }. format(value) writes a cell's number.
   */
  function headMap(b, rows, scale, size, { extra = null, format = signed } = {}) {
    const heads = rows[0].length;
    const map = el('div', 'mh-why-map');
    map.style.setProperty('--mh-why-cell', `${size}px`);
    map.style.gridTemplateColumns = `${LABEL_WIDTH}px repeat(${heads}, ${size}px)${extra ? ` 8px ${size}px` : ''}`;
    map.append(el('span'), ...Array.from({ length: heads }, (_, h) => el('span', 'mh-why-colhead', String(h + 1))));
    if (extra) map.append(el('span'), el('span', 'mh-why-colhead', extra.label));
    const cells = rows.map((row, layer) => {
      const line = Array.from(row, (v, head) => cell(scale, v, `${headName(layer, head)}: ${format(v)}`, { layer, head }));
      map.append(el('span', 'mh-why-rowhead', `layer ${layer + 1}`), ...line);
      if (extra) {
        const mlp = cell(scale, extra.values[layer], `layer ${layer + 1} ${extra.label}: ${format(extra.values[layer])}`, { layer });
        mlp.classList.add('mh-why-mlp');
        map.append(el('span'), mlp);
        line.push(mlp);
      }
      return line;
    });
    grid(b, cells);
    map.setAttribute('role', 'group');
    return map;
  }

  /** The side of a head's cell for `columns` columns in the view's width. */
  function cellSize(columns) {
    const width = root.clientWidth || 640;
    return Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor((width - LABEL_WIDTH - 16) / columns)));
  }

  function renderHeads(b, { tokens, contributions: c, causal }, size) {
    const scale = contributionScale(c);
    const map = headMap(b, c.heads, scale, size, { extra: { label: 'MLP', values: c.mlps } });
    map.setAttribute('aria-label', 'each head and MLP: its part; arrow keys move between cells');
    const terms = el('div', 'mh-why-terms');
    terms.style.setProperty('--mh-why-cell', `${size}px`);
    const termCells = [['embeddings', c.embeddings], ['biases', c.biases]].map(([name, v]) => {
      const button = cell(scale, v, `${name}: ${signed(v)}`);
      button.classList.add(`mh-why-${name}`);
      terms.append(el('span', 'mh-why-rowhead', name), button);
      return button;
    });
    grid(b, [termCells]);
    const nodes = [el('p', 'mh-why-sentence', logitText(tokens, c, causal)), map, terms, createLegend(scale)];
    const note = softcapText(c);
    if (note) nodes.push(el('p', 'mh-why-note', note));
    return nodes;
  }

  function renderLens(b, { tokens, position, lens, causal }) {
    const scale = probabilityScale();
    const table = el('table', 'mh-why-table');
    const head = el('tr');
    head.append(el('th', 'mh-why-corner', causal ? 'after' : 'at'));
    for (const p of lens.positions) {
      const th = el('th', p === position ? 'mh-token mh-why-current' : 'mh-token', clipText(oneLine(tokens[p]), LENS_CHARS));
      th.scope = 'col';
      th.title = `position ${p + 1}: ${quote(tokens[p])}`;
      head.append(th);
    }
    const body = el('tbody');
    const cells = lens.cells.map((row, r) => {
      const tr = el('tr');
      const th = el('th', '', lens.layers[r]);
      th.scope = 'row';
      tr.append(th);
      const line = row.map((list, col) => {
        const best = list[0];
        const td = el('td', lens.positions[col] === position ? 'mh-token mh-why-current' : 'mh-token', clipText(oneLine(best.token), LENS_CHARS));
        td.style.background = hexColor(scale, best.probability);
        td.style.color = textColorOn(scale, best.probability);
        td.title = `${lens.layers[r]}, position ${lens.positions[col] + 1}:\n${lensTip(list)}`;
        state.tips.set(td, td.title);
        return td;
      });
      tr.append(...line);
      body.append(tr);
      return line;
    });
    grid(b, cells);
    const thead = el('thead');
    thead.append(head);
    table.append(thead, body);
    const scroll = el('div', 'mh-why-scroll');
    scroll.append(table);
    return [el('p', 'mh-why-sentence', lensHint(causal)), scroll, createLegend(scale)];
  }

  function renderPatch(b, p, size) {
    const scale = patchScale(p);
    // Patching's values are shares of the clean run's logit difference, printed as the list below prints them.
    const map = headMap(b, p.values, scale, size, { format: formatNumber });
    map.setAttribute('aria-label', 'patching, each head; arrow keys move between cells');
    const list = el('ol', 'mh-why-strongest');
    for (const { layer, head, value } of strongestHeads(p.values)) {
      const button = el('button', '', `${headName(layer, head)}: ${formatNumber(value)}`);
      button.type = 'button';
      Object.assign(button.dataset, { layer: String(layer), head: String(head) });
      const item = el('li');
      item.append(button);
      list.append(item);
    }
    return [el('p', 'mh-why-sentence', patchText(p)), el('p', 'mh-why-note', PATCH_HINT), map, createLegend(scale),
      el('h4', 'mh-why-subtitle', 'Strongest heads'), list];
  }

  function buildScatter() {
    const text = el('p', 'mh-why-sentence');
    const key = el('ul', 'mh-why-qk-key');
    for (const [name, shape] of [['query', 'circle'], ['key', 'square']]) {
      const item = el('li');
      item.append(el('span', `mh-why-swatch mh-why-${shape}`), name);
      key.append(item);
    }
    const canvas = el('canvas', 'mh-why-canvas');
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    const listeners = {
      pointermove(event) {
        const box = canvas.getBoundingClientRect();
        hover(nearest(event.clientX - box.left, event.clientY - box.top));
      },
      pointerleave: () => hover(null),
      focus() {
        // Keyboard focus starts at the explained position's query; a click's focus leaves the pointer in charge.
        if (canvas.matches(':focus-visible') && state.hover === null && state.scatter) hover(state.data.position);
      },
      blur: () => hover(null),
      keydown(event) {
        if (!state.scatter) return;
        const n = state.data.tokens.length;
        const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
        if (step) hover(clamp((state.hover === null ? state.data.position : state.hover % n) + step, n));
        else if (event.key === 'Escape') hover(null);
        else return;
        event.preventDefault();
      },
    };
    for (const [type, fn] of Object.entries(listeners)) canvas.addEventListener(type, fn);
    blocks.qk.body.append(text, key, canvas);
    return { text, canvas };
  }

  /** The point within HIT px of (x, y) in CSS px, nearest first; null when none is. */
  function nearest(x, y) {
    const points = state.scatter?.points;
    let best = null, bestDistance = HIT * HIT;
    for (let i = 0; points && i < points.length / 2; i++) {
      const d = (points[2 * i] - x) ** 2 + (points[2 * i + 1] - y) ** 2;
      if (d < bestDistance) [best, bestDistance] = [i, d];
    }
    return best;
  }

  function hover(index) {
    if (state.hover === index) return;
    if (index === null) showTip(null);
    state.hover = index;
    schedulePaint();
  }

  function schedulePaint() {
    if (!state.frame) state.frame = requestAnimationFrame(() => {
      state.frame = 0;
      paintScatter();
    });
  }

  /** Lays the scatter out at the view's width: the square canvas, and every point's place in CSS px. */
  function layoutScatter({ tokens, queryKeys: qk }) {
    const side = Math.max(SCATTER_MIN, Math.min(SCATTER_MAX, (root.clientWidth || 640) - 4));
    const dpr = globalThis.devicePixelRatio || 1;
    const { canvas } = scatter;
    const size = Math.round(side * dpr);
    if (canvas.width !== size) canvas.width = canvas.height = size;
    canvas.style.width = canvas.style.height = `${side}px`;
    const place = scatterPlace(qk.queries, qk.keys, side, side, SCATTER_PAD);
    const points = new Float32Array(tokens.length * 4);
    for (const [offset, xy] of [[0, qk.queries], [tokens.length, qk.keys]]) {
      for (let i = 0; i < tokens.length; i++) points.set(place(xy[2 * i], xy[2 * i + 1]), 2 * (offset + i));
    }
    state.scatter = { side, points, ink: getComputedStyle(root).color || '#222' };
  }

  /** Draws every point, then what the hovered point picks out: a query's lines to its top keys. */
  function paintScatter() {
    const { data, scatter: layout, hover: chosen } = state;
    if (!data?.queryKeys || !layout) return;
    const { tokens, queryKeys: qk, causal } = data;
    const n = tokens.length, { points, side, ink } = layout;
    const ctx = scatter.canvas.getContext('2d');
    const dpr = globalThis.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, side, side);
    const query = chosen !== null && chosen < n ? chosen : null;
    // A query that sees fewer than k keys (the first of a causal model) may list its best one again.
    const top = query === null ? [] : [...new Set(Array.from({ length: qk.k }, (_, i) => qk.top[query * qk.k + i]))];
    // In a causal model a query cannot see the keys after it: they fade while it is chosen.
    const hidden = (j) => causal && query !== null && j > query;
    const square = (path, i, r) => path.rect(points[2 * i] - r, points[2 * i + 1] - r, 2 * r, 2 * r);
    const circle = (path, i, r) => {
      path.moveTo(points[2 * i] + r, points[2 * i + 1]);
      path.arc(points[2 * i], points[2 * i + 1], r, 0, 2 * Math.PI);
    };
    const keys = [new Path2D(), new Path2D()], queries = new Path2D();
    for (let j = 0; j < n; j++) square(keys[hidden(j) ? 1 : 0], n + j, POINT);
    for (let i = 0; i < n; i++) circle(queries, i, POINT);
    ctx.fillStyle = KEY_COLOR;
    ctx.fill(keys[0]);
    ctx.globalAlpha = 0.2;
    ctx.fill(keys[1]);
    ctx.globalAlpha = query === null ? 1 : 0.6;
    ctx.fillStyle = QUERY_COLOR;
    ctx.fill(queries);
    ctx.globalAlpha = 1;
    if (chosen === null) return;
    ctx.strokeStyle = ink;
    ctx.lineWidth = 1.5;
    const lines = new Path2D(), rings = new Path2D();
    for (const j of top) {
      lines.moveTo(points[2 * query], points[2 * query + 1]);
      lines.lineTo(points[2 * (n + j)], points[2 * (n + j) + 1]);
      square(rings, n + j, POINT + 3);
    }
    if (query === null) square(rings, chosen, POINT + 3);
    else circle(rings, chosen, POINT + 3);
    ctx.stroke(lines);
    ctx.lineWidth = 2;
    ctx.stroke(rings);
    const box = scatter.canvas.getBoundingClientRect();
    const [x, y] = [box.left + points[2 * chosen], box.top + points[2 * chosen + 1]];
    const name = query === null ? `key ${chosen - n + 1} ${quote(tokens[chosen - n])}` : `query ${query + 1} ${quote(tokens[query])}`;
    const looks = top.length ? `\nattends most to keys ${top.map((j) => `${j + 1} ${quote(tokens[j])}`).join(', ')}` : '';
    showTip(null, name + looks, { left: x - HIT, right: x + HIT, top: y - HIT });
  }

  function renderScatter(data) {
    const qk = data.queryKeys;
    blocks.qk.title.textContent = queryKeyTitle(qk);
    scatter.text.textContent = `${varianceText(qk)} Hover a point to name it; a query's lines go to the keys it attends most.`;
    scatter.canvas.setAttribute('aria-label', `${queryKeyTitle(qk)}, ${data.tokens.length} of each. ` +
      'Arrow keys step through the queries and name the keys each attends most.');
    layoutScatter(data);
    paintScatter();
  }

  function update(data) {
    const previous = state.data;
    state.data = data;
    const c = data.contributions, p = data.patch;
    const headCell = c && cellSize(c.heads[0].length + 1), patchCell = p && cellSize(p.values[0].length);
    show(blocks.heads, Boolean(c), [c, data.tokens, headCell, data.causal], (b) => renderHeads(b, data, headCell));
    show(blocks.lens, Boolean(data.lens), [data.lens, data.tokens, data.position, data.causal], (b) => renderLens(b, data));
    show(blocks.patch, Boolean(p), [p, patchCell], (b) => renderPatch(b, p, patchCell));
    // A sweep in progress shows the patch block with its note alone until its map comes.
    blocks.patch.section.hidden = !p && !data.patching;
    progress.hidden = !data.patching;
    progress.textContent = data.patching ? `Patching… ${data.patching.done}/${data.patching.total}` : '';
    blocks.qk.section.hidden = !data.queryKeys;
    if (previous?.queryKeys !== data.queryKeys) hover(null);
    if (data.queryKeys) renderScatter(data);
    else state.scatter = null;
    message.textContent = data.error ?? '';
    message.hidden = !data.error;
    // Busy while a patch sweep runs: the view draws every other part as soon as it has it.
    if (data.patching) root.setAttribute('aria-busy', 'true');
    else root.removeAttribute('aria-busy');
  }

  return {
    update,
    destroy() {
      cancelAnimationFrame(state.frame);
      for (const [type, fn] of Object.entries(listeners)) root.removeEventListener(type, fn);
      root.replaceChildren();
      root.classList.remove('mh-why');
      root.removeAttribute('aria-busy');
    },
  };
}

function clamp(i, n) {
  return Math.max(0, Math.min(n - 1, i));
}

export const WHY_CSS = `
.mh-why { position: relative; color: var(--mh-fg, #222); }
.mh-why > .mh-tooltip { white-space: pre; }
.mh-why-message { color: var(--mh-warn, #8a4b00); }
.mh-why-block { margin: 0 0 24px; }
.mh-why-block[hidden] { display: none; }
.mh-why-title { margin: 0 0 4px; font-size: 15px; }
.mh-why-subtitle { margin: 8px 0 4px; font-size: 13px; }
.mh-why-sentence, .mh-why-note, .mh-why-progress { margin: 0 0 8px; font-size: 13px; }
.mh-why-note, .mh-why-progress { color: var(--mh-muted, #666); }
.mh-why-map, .mh-why-terms { display: grid; align-items: center; font-size: 11px; }
.mh-why-terms { grid-template-columns: ${LABEL_WIDTH}px var(--mh-why-cell) ${LABEL_WIDTH}px var(--mh-why-cell); margin-top: 6px; }
.mh-why-colhead { text-align: center; color: var(--mh-muted, #666); font-size: 10px; line-height: 1.6; overflow: hidden; }
.mh-why-rowhead { text-align: right; padding-right: 6px; white-space: nowrap; overflow: hidden; }
.mh-why-cell { all: unset; box-sizing: border-box; width: var(--mh-why-cell); height: var(--mh-why-cell); cursor: pointer;
  border: 1px solid rgb(128 128 128 / 0.3); }
.mh-why-cell:hover { outline: 2px solid var(--mh-fg, #222); outline-offset: -1px; position: relative; z-index: 1; }
.mh-why-cell:focus-visible { outline: 3px solid var(--mh-accent, #0072b2); outline-offset: 0; position: relative; z-index: 1; }
.mh-why-strongest { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; margin: 0; padding: 0; }
.mh-why-strongest button { font: 12px var(--mh-font-mono, ui-monospace, monospace); color: var(--mh-fg, #222);
  background: var(--mh-panel, #f4f5f7); border: 1px solid var(--mh-border, #ccc); border-radius: 4px; padding: 2px 8px; cursor: pointer; }
.mh-why-strongest button:hover { border-color: var(--mh-accent, #0072b2); }
.mh-why-strongest button:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: 1px; }
.mh-why-scroll { overflow-x: auto; max-width: 100%; }
.mh-why-table { border-collapse: collapse; font-size: 12px; }
.mh-why-table th { font-weight: normal; color: var(--mh-muted, #666); padding: 2px 6px; white-space: pre; text-align: right; }
.mh-why-table thead th { text-align: center; }
.mh-why-table th.mh-why-current { color: var(--mh-fg, #222); font-weight: 700; }
.mh-why-table td { padding: 2px 6px; min-width: ${LENS_CHARS}ch; white-space: pre; text-align: center; cursor: default;
  border: 1px solid var(--mh-bg, #fff); }
.mh-why-table td.mh-why-current { border-left: 2px solid var(--mh-fg, #222); border-right: 2px solid var(--mh-fg, #222); }
.mh-why-table td:focus-visible { outline: 3px solid var(--mh-accent, #0072b2); outline-offset: -3px; }
.mh-why-qk-key { display: flex; gap: 16px; list-style: none; margin: 0 0 6px; padding: 0; font-size: 12px; }
.mh-why-swatch { display: inline-block; width: ${2 * POINT + 2}px; height: ${2 * POINT + 2}px; margin-right: 6px; }
.mh-why-circle { border-radius: 50%; background: ${QUERY_COLOR}; }
.mh-why-square { background: ${KEY_COLOR}; }
.mh-why-canvas { display: block; border: 1px solid var(--mh-border, #ccc); border-radius: 4px; }
.mh-why-canvas:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: 2px; }
`;
