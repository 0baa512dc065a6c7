// Every head of one layer as small multiples: one small heatmap per head, on one shared scale, so
// the heads' patterns can be compared at a glance. Hovering a heatmap reads out a cell; choosing a
// head (click, or Enter on its focused card) calls onSelectHead so the page can enlarge it.
import { createLegend, weightScale } from './colormap.js';
import { el, weightText } from './dom.js';
import { MatrixCanvas } from './matrix-canvas.js';

const GAP = 12; // CSS px between cards

export function createGridView(root, { onSelectHead = () => {} } = {}) {
  const state = { data: null, cards: [] }; // data: { tokens, weights: per head (n × n), title }
  const scale = weightScale();
  root.replaceChildren();
  root.classList.add('mh-grid');
  const title = el('h3');
  const cards = el('div', 'mh-grid-cards');
  const readout = el('p', 'mh-grid-readout', 'Hover a heatmap to read a weight; choose a head to enlarge it.');
  root.append(title, cards, readout, createLegend(scale));

  function card(head) {
    const button = el('button', 'mh-grid-card');
    button.type = 'button';
    const matrix = new MatrixCanvas({ label: `head ${head + 1}`, square: true, maxCell: 24 });
    button.append(matrix.element, el('span', '', `head ${head + 1}`));
    button.addEventListener('click', () => onSelectHead(head));
    button.addEventListener('pointermove', (event) => {
      const cell = matrix.cellAt(event.clientX, event.clientY);
      matrix.mark({ cells: cell ? [[cell.row, cell.col]] : [] });
      if (cell) readout.textContent = `head ${head + 1}: ${weightText(state.data.tokens, state.data.weights[head], cell.row, cell.col)}`;
    });
    button.addEventListener('pointerleave', () => matrix.mark({}));
    return { button, matrix };
  }

  function update(data) {
    state.data = data;
    title.textContent = data.title ?? '';
    const heads = data.weights.length, n = data.tokens.length;
    if (state.cards.length !== heads) {
      state.cards = Array.from({ length: heads }, (_, h) => card(h));
      cards.replaceChildren(...state.cards.map((c) => c.button));
    }
    // Two columns on a phone, up to four across on a wide screen.
    const width = Math.max(120, root.clientWidth);
    const across = Math.max(2, Math.min(heads, 4, Math.floor(width / 170)));
    const side = Math.floor((width - GAP * (across - 1)) / across) - 10;
    state.cards.forEach(({ button, matrix }, h) => {
      matrix.draw(data.weights[h], n, n, scale, { maxWidth: side, maxHeight: side });
      button.setAttribute('aria-label', `${data.title ?? ''} head ${h + 1}: enlarge`.trim());
    });
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
.mh-grid-readout { font-family: var(--mh-font-mono, ui-monospace, monospace); font-size: 13px; min-height: 1.4em; }
`;
