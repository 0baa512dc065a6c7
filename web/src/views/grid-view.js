// Every head of one layer as small multiples: one small heatmap per head, on one shared scale, so
// the heads' patterns can be compared at a glance. Hovering a heatmap reads out a cell; choosing a
// head (click, or Enter on its focused card) calls onSelectHead so the page can enlarge it.
// Given rows (one per layer) instead, it draws every layer's heads, a row each, as thumbnails:
// BERT-base's 144 heads at a glance. Each thumbnail draws its whole matrix, one pixel per value,
// scaled down by the canvas; it is a picture to compare, read out by hovering.
import { createLegend, weightScale } from './colormap.js';
import { causalKey, el, weightText } from './dom.js';
import { MatrixCanvas } from './matrix-canvas.js';

const GAP = 12; // CSS px between cards

const THUMB_MIN = 56; // CSS px: the smallest thumbnail of the every-layer grid

export function createGridView(root, { onSelectHead = () => {} } = {}) {
  // data: { tokens, weights: per head (n × n), title }, or { tokens, rows: [{ title, weights }], title }
  const state = { data: null, cards: [], shape: '' };
  const scale = weightScale();
  root.replaceChildren();
  root.classList.add('mh-grid');
  const title = el('h3');
  const cards = el('div', 'mh-grid-cards');
  const readout = el('p', 'mh-grid-readout', 'Hover a heatmap to read a weight; choose a head to enlarge it.');
  const masked = causalKey();
  root.append(title, cards, readout, createLegend(scale), masked.element);

  // One card: head `head` of `layer` (a row of the every-layer grid), or of the one layer shown.
  function card(head, layer = null) {
    const button = el('button', 'mh-grid-card');
    button.type = 'button';
    const name = layer === null ? `head ${head + 1}` : `layer ${layer + 1} head ${head + 1}`;
    const matrix = new MatrixCanvas({ label: name, square: true, maxCell: 24 });
    button.append(matrix.element, el('span', '', layer === null ? name : `${head + 1}`));
    button.addEventListener('click', () => onSelectHead(head, layer));
    button.addEventListener('pointermove', (event) => {
      const cell = matrix.cellAt(event.clientX, event.clientY);
      matrix.mark({ cells: cell ? [[cell.row, cell.col]] : [] });
      if (cell) readout.textContent = `${name}: ${weightText(state.data.tokens, weightsOf(head, layer), cell.row, cell.col)}`;
    });
    button.addEventListener('pointerleave', () => matrix.mark({}));
    return { button, matrix, head, layer };
  }

  const weightsOf = (head, layer) => (layer === null ? state.data.weights : state.data.rows[layer].weights)[head];

  /** (Re)builds the cards when the number of layers or heads changes. */
  function build(data) {
    const shape = data.rows ? `rows ${data.rows.map((r) => r.weights.length)}` : `heads ${data.weights.length}`;
    if (state.shape === shape) return;
    state.shape = shape;
    if (!data.rows) {
      state.cards = data.weights.map((_, h) => card(h));
      cards.className = 'mh-grid-cards';
      cards.replaceChildren(...state.cards.map((c) => c.button));
      return;
    }
    state.cards = [];
    cards.className = 'mh-grid-layers';
    cards.replaceChildren(...data.rows.map((row, l) => {
      const group = el('div', 'mh-grid-layer');
      group.setAttribute('role', 'group');
      group.setAttribute('aria-label', row.title);
      const line = el('div', 'mh-grid-cards');
      for (let h = 0; h < row.weights.length; h++) {
        const c = card(h, l);
        state.cards.push(c);
        line.append(c.button);
      }
      group.append(el('h4', '', row.title), line);
      return group;
    }));
  }

  function update(data) {
    state.data = data;
    title.textContent = data.title ?? '';
    masked.show(Boolean(data.causal));
    build(data);
    const n = data.tokens.length;
    const width = Math.max(120, root.clientWidth);
    let side;
    if (data.rows) {
      // Every head of a layer on one line where they fit (12 across from about 900 px).
      const heads = Math.max(...data.rows.map((r) => r.weights.length));
      const across = Math.max(1, Math.min(heads, Math.floor((width + GAP) / (THUMB_MIN + 10 + GAP))));
      side = Math.max(THUMB_MIN - 10, Math.floor((width - GAP * (across - 1)) / across) - 10);
    } else {
      // Two columns on a phone, up to four across on a wide screen.
      const heads = data.weights.length;
      const across = Math.max(2, Math.min(heads, 4, Math.floor(width / 170)));
      side = Math.floor((width - GAP * (across - 1)) / across) - 10;
    }
    for (const { button, matrix, head, layer } of state.cards) {
      matrix.draw(weightsOf(head, layer), n, n, scale, { maxWidth: side, maxHeight: side, causal: Boolean(data.causal) });
      const where = layer === null ? `${data.title ?? ''} head ${head + 1}` : `Layer ${layer + 1} head ${head + 1}`;
      button.setAttribute('aria-label', `${where}: enlarge`.trim());
    }
  }

  return {
    update,
    destroy() {
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
.mh-grid-readout { font-family: var(--mh-font-mono, ui-monospace, monospace); font-size: 13px; min-height: 1.4em; }
`;
