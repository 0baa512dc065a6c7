// One head's attention enlarged: a canvas heatmap with the query tokens down its rows and the key
// tokens across its columns (the same list in self-attention). Hovering a cell shows
// "query → key: weight"; clicking a query token pins its row; the heatmap takes keyboard focus
// and the arrow keys move a focused cell. It draws one (nQueries × nKeys) matrix it is given;
// which layer and head that is, and where the numbers come from, is the caller's business.
// onSelect(row) reports a pinned query row (null when unpinned); onSelectCell({ row, col }) a cell
// chosen by click or by Enter.
// With { timing: true } it records each hover's time to paint as a 'mh-hover-to-paint'
// performance measure (the e2e test reads them; the page leaves it off so entries do not pile up).
import { createLegend, weightScale } from './colormap.js';
import { axes, el, maskKey, sameAxes, tokenLabel, weightText } from './dom.js';
import { MatrixCanvas } from './matrix-canvas.js';

const LABEL_WIDTH = 84; // CSS px for the query labels down the left
const MIN_LABEL_CELL = 7; // CSS px: smaller cells get no axis text (hover still names the tokens)

export function createHeadView(root, { onSelect = () => {}, onSelectCell = () => {}, timing = false } = {}) {
  const state = {
    // { tokens, unknown, keyTokens?, keyUnknown?, weights (nQueries × nKeys), title, causal, queryOffset?, window?, shared?, row? }
    data: null,
    hover: null, // { row, col } under the pointer
    focus: null, // { row, col } moved by the keyboard
    pinned: null, // pinned query row, or null
    frame: 0, // pending animation frame
  };
  const scale = weightScale();
  const matrix = new MatrixCanvas({ label: 'attention weights', square: true, maxCell: 28 });
  const dom = build(root, matrix, scale);

  matrix.element.tabIndex = 0;
  matrix.element.addEventListener('pointermove', (event) => {
    // From the first hover a frame will show, not the last one before it.
    if (timing && !state.frame) performance.mark('mh-hover');
    state.hover = matrix.cellAt(event.clientX, event.clientY);
    schedulePaint();
  });
  matrix.element.addEventListener('pointerleave', () => {
    state.hover = null;
    schedulePaint();
  });
  matrix.element.addEventListener('click', (event) => {
    const cell = matrix.cellAt(event.clientX, event.clientY);
    if (!cell) return;
    pin(cell.row);
    onSelectCell(cell);
  });
  matrix.element.addEventListener('focus', () => {
    // A click focuses too, but only keyboard focus should leave a cell marked.
    if (matrix.element.matches(':focus-visible')) startFocus();
  });
  matrix.element.addEventListener('blur', () => {
    state.focus = null;
    schedulePaint();
  });
  matrix.element.addEventListener('keydown', onKey);

  function startFocus() {
    state.focus ??= { row: state.pinned ?? 0, col: 0 };
    schedulePaint();
  }

  function onKey(event) {
    if (!state.data) return;
    const { queries, keys } = axes(state.data);
    if (!state.focus) startFocus();
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (event.key in moves) {
      const [dr, dc] = moves[event.key];
      state.focus = { row: clamp(state.focus.row + dr, queries.length), col: clamp(state.focus.col + dc, keys.length) };
    } else if (event.key === 'Enter' || event.key === ' ') {
      pin(state.focus.row);
      onSelectCell(state.focus);
    } else if (event.key === 'Escape') {
      if (state.pinned !== null) pin(state.pinned);
    } else {
      return;
    }
    event.preventDefault();
    schedulePaint();
    dom.live.textContent = describe(state.focus);
  }

  function describe({ row, col }) {
    return weightText(axes(state.data), state.data.weights, row, col);
  }

  function pin(row) {
    state.pinned = state.pinned === row ? null : row;
    dom.queries.querySelectorAll('button').forEach((b, i) => b.setAttribute('aria-pressed', String(i === state.pinned)));
    onSelect(state.pinned);
    schedulePaint();
  }

  function schedulePaint() {
    if (state.frame) return;
    state.frame = requestAnimationFrame(() => {
      state.frame = 0;
      paintMarks();
      if (timing) measureAfterPaint();
    });
  }

  // A message posted during a frame is handled after that frame is painted.
  function measureAfterPaint() {
    if (performance.getEntriesByName('mh-hover', 'mark').length === 0) return;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      performance.measure('mh-hover-to-paint', 'mh-hover');
      performance.clearMarks('mh-hover');
    };
    channel.port2.postMessage(null);
  }

  function paintMarks() {
    if (!state.data) return;
    const cell = state.hover ?? state.focus;
    matrix.mark({
      rows: state.pinned === null ? [] : [state.pinned],
      cells: cell ? [[cell.row, cell.col]] : [],
      dim: state.pinned !== null,
    });
    placeTooltip(cell);
  }

  function placeTooltip(cell) {
    dom.tooltip.hidden = !cell;
    if (!cell) return;
    dom.tooltip.textContent = describe(cell);
    const x = (cell.col + 1) * matrix.cellWidth + 8, y = cell.row * matrix.cellHeight;
    const right = x + dom.tooltip.offsetWidth > dom.plot.clientWidth;
    dom.tooltip.style.left = `${right ? Math.max(0, cell.col * matrix.cellWidth - dom.tooltip.offsetWidth - 8) : x}px`;
    dom.tooltip.style.top = `${y}px`;
  }

  function update(data) {
    const { queries, keys } = axes(data);
    if (!sameAxes(state.data, data)) {
      state.hover = state.focus = null;
      state.pinned = null;
    }
    // A row the caller marks (a written token's query) is pinned, as a click would.
    if (data.row != null && (data.row !== state.data?.row || state.pinned === null)) state.pinned = data.row;
    else if (data.row == null && state.data?.row != null && state.pinned === state.data.row) state.pinned = null;
    state.data = data;
    dom.title.textContent = data.title ?? '';
    dom.shared.textContent = data.shared ?? '';
    dom.shared.hidden = !data.shared;
    dom.masked.show({ causal: Boolean(data.causal), window: data.window ?? null });
    const side = Math.max(40, Math.min(560, root.clientWidth - LABEL_WIDTH - 8));
    matrix.draw(data.weights, queries.length, keys.length, scale,
      { maxWidth: side, maxHeight: side, causal: Boolean(data.causal), window: data.window ?? null, queryOffset: data.queryOffset ?? 0 });
    matrix.element.setAttribute('aria-label',
      `${data.title ?? 'attention'}: ${queries.length} × ${keys.length} weights. Arrow keys move between cells, Enter pins a row.`);
    renderLabels(dom, axes(data), matrix.cellWidth, pin, () => state.pinned);
    paintMarks();
  }

  return {
    update,
    destroy() {
      cancelAnimationFrame(state.frame);
      root.replaceChildren();
    },
  };
}

function clamp(i, n) {
  return Math.max(0, Math.min(n - 1, i));
}

function build(root, matrix, scale) {
  root.replaceChildren();
  root.classList.add('mh-head');
  const title = el('h3', 'mh-head-title');
  const shared = el('p', 'mh-head-shared'); // grouped-query attention: the heads this one shares its keys and values with
  shared.hidden = true;
  const keys = el('div', 'mh-head-keys');
  keys.setAttribute('aria-label', 'keys');
  const queries = el('div', 'mh-head-queries');
  queries.setAttribute('aria-label', 'queries');
  const plot = el('div', 'mh-head-plot');
  const tooltip = el('div', 'mh-tooltip');
  tooltip.hidden = true;
  tooltip.setAttribute('aria-hidden', 'true');
  plot.append(matrix.element, tooltip);
  const live = el('p', 'mh-visually-hidden');
  live.setAttribute('aria-live', 'polite');
  const grid = el('div', 'mh-head-grid');
  const corner = el('div', 'mh-head-corner', 'query ↓ key →');
  grid.append(corner, keys, queries, plot);
  const masked = maskKey();
  root.append(title, shared, grid, createLegend(scale), masked.element, live);
  return { title, shared, keys, queries, plot, tooltip, live, masked };
}

function renderLabels(dom, { queries, queryUnknown, keys, keyUnknown }, cell, pin, pinned) {
  const small = cell < MIN_LABEL_CELL;
  const font = `${Math.max(6, Math.min(13, cell - 2))}px`;
  dom.keys.replaceChildren(...keys.map((t, i) => {
    const label = tokenLabel('span', t, keyUnknown[i]);
    label.style.width = `${cell}px`;
    label.style.fontSize = font;
    return label;
  }));
  dom.queries.replaceChildren(...queries.map((t, i) => {
    const button = tokenLabel('button', t, queryUnknown[i]);
    button.type = 'button';
    button.style.height = `${cell}px`;
    button.style.fontSize = font;
    button.setAttribute('aria-label', `pin the row of query ${i + 1}, “${t}”`);
    button.setAttribute('aria-pressed', String(pinned() === i));
    button.addEventListener('click', () => pin(i));
    return button;
  }));
  dom.keys.classList.toggle('mh-labels-hidden', small);
  dom.queries.classList.toggle('mh-labels-hidden', small);
}

export const HEAD_CSS = `
.mh-head-shared { margin: 0 0 8px; font-size: 13px; color: var(--mh-muted, #666); }
.mh-head-shared[hidden] { display: none; }
.mh-head-grid { display: grid; grid-template-columns: ${LABEL_WIDTH}px auto; align-items: end; }
.mh-head-corner { font-size: 11px; color: var(--mh-muted, #666); align-self: end; padding: 0 4px 4px 0; text-align: right; }
.mh-head-keys { display: flex; align-items: flex-end; height: 84px; overflow: hidden; }
.mh-head-keys span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; max-height: 84px; line-height: 1; text-align: left; }
.mh-head-queries { display: flex; flex-direction: column; align-self: start; }
.mh-head-queries button { all: unset; box-sizing: border-box; width: ${LABEL_WIDTH}px; padding-right: 4px; text-align: right;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; line-height: 1; display: flex;
  align-items: center; justify-content: flex-end; }
.mh-head-queries button[aria-pressed="true"] { font-weight: 700; color: var(--mh-accent, #0072b2); }
.mh-head-queries button:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: -2px; }
.mh-labels-hidden > * { visibility: hidden; }
.mh-head-plot { position: relative; align-self: start; }
.mh-head-plot .mh-matrix:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: 2px; }
`;
