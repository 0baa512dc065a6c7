// The alignment view of an encoder–decoder's cross-attention: the source sentence above the
// target sentence, each target word linked to the source words read when it was written (the
// decoder's row before it), by the mean of one layer's cross heads (Bahdanau et al. 2014 drew a
// translation's attention this way). It draws { source, sourceUnknown, target, weights (target ×
// source), title }, or { error }. A link's
// opacity is its weight; each target word's strongest link is drawn solid in the accent colour,
// the word it reads most. Hovering or focusing a target word shows its links alone and names its
// three strongest; the arrow keys move between target words. Tokens are text, never HTML.
import { formatNumber } from './colormap.js';
import { el, tokenLabel } from './dom.js';

const MIN_WEIGHT = 0.05; // fainter links are left out: a 40-word pair would draw 1,600 of them
const GAP = 64; // CSS px between the two sentences, where the links run

export const ALIGNMENT_CSS = `
.mh-alignment { color: var(--mh-fg, #222); }
.mh-alignment h3 { font-size: 15px; margin: 0 0 6px; }
.mh-alignment-note { margin: 0 0 8px; font-size: 12px; color: var(--mh-muted, #666); }
.mh-alignment-body { position: relative; overflow-x: auto; padding: 2px; }
.mh-alignment-row { display: flex; gap: 6px; list-style: none; margin: 0; padding: 0; width: max-content; }
.mh-alignment-row > li { flex: none; }
.mh-alignment-target { margin-top: ${GAP}px; }
.mh-alignment-word { display: inline-block; padding: 2px 6px; border: 1px solid var(--mh-border, #ccc); border-radius: 4px;
  font: 13px var(--mh-font-mono, ui-monospace, monospace); background: var(--mh-bg, #fff); color: inherit; }
button.mh-alignment-word { cursor: pointer; }
button.mh-alignment-word:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: 1px; }
.mh-alignment-word[aria-pressed="true"], .mh-alignment-read { border-color: var(--mh-accent, #0072b2); font-weight: 600; }
.mh-alignment-links { position: absolute; left: 0; top: 0; pointer-events: none; overflow: visible; }
.mh-alignment-readout { font: 13px var(--mh-font-mono, ui-monospace, monospace); min-height: 1.4em; }
`;

export function createAlignmentView(root) {
  const state = { data: null, chosen: null, words: { source: [], target: [] } };
  root.replaceChildren();
  root.classList.add('mh-alignment');
  const title = el('h3');
  const note = el('p', 'mh-alignment-note',
    'Each target word (below) is linked to the source words (above) the cross-attention read when it was written; the solid link is the word read most. ' +
    'Point at or focus a target word to see its links alone.');
  const body = el('div', 'mh-alignment-body');
  const source = el('ol', 'mh-alignment-row mh-alignment-source');
  source.setAttribute('aria-label', 'source tokens');
  const target = el('ol', 'mh-alignment-row mh-alignment-target');
  target.setAttribute('aria-label', 'target tokens: choose one to see what it reads');
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'mh-alignment-links');
  svg.setAttribute('aria-hidden', 'true');
  body.append(source, target, svg);
  const readout = el('p', 'mh-alignment-readout');
  readout.setAttribute('aria-live', 'polite');
  root.append(title, note, body, readout);

  target.addEventListener('pointerover', (event) => choose(indexOf(event.target)));
  target.addEventListener('focusin', (event) => choose(indexOf(event.target)));
  target.addEventListener('pointerleave', () => {
    if (!target.contains(document.activeElement)) choose(null);
  });
  target.addEventListener('keydown', (event) => {
    const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    const at = indexOf(event.target);
    if (step === undefined || at === null) return;
    event.preventDefault();
    state.words.target[Math.max(0, Math.min(state.words.target.length - 1, at + step))]?.focus();
  });

  /** The target word index of an element inside the target row, or null. */
  function indexOf(node) {
    const word = node instanceof Element ? node.closest('button') : null;
    return word ? state.words.target.indexOf(word) : null;
  }

  function update(data) {
    state.data = data;
    title.textContent = data.error ? '' : data.title;
    note.hidden = Boolean(data.error);
    body.hidden = Boolean(data.error);
    if (data.error) {
      readout.textContent = data.error;
      return;
    }
    state.words.source = data.source.map((text, j) => {
      const word = tokenLabel('span', text, data.sourceUnknown[j]);
      word.classList.add('mh-alignment-word');
      return word;
    });
    state.words.target = data.target.map((text, i) => {
      const word = el('button', 'mh-token mh-alignment-word', text);
      word.type = 'button';
      word.setAttribute('aria-label', `${text}: ${strongest(i).map(linkText).join(', ')}`);
      return word;
    });
    source.replaceChildren(...state.words.source.map((w) => wrap(w)));
    target.replaceChildren(...state.words.target.map((w) => wrap(w)));
    if (state.chosen !== null && state.chosen >= data.target.length) state.chosen = null;
    draw();
  }

  /** The source columns of target row i by weight, the three strongest: [{ j, weight }]. */
  function strongest(i) {
    const { weights, source: words } = state.data;
    const m = words.length;
    return Array.from({ length: m }, (_, j) => ({ j, weight: weights[i * m + j] })).sort((a, b) => b.weight - a.weight).slice(0, 3);
  }

  function linkText({ j, weight }) {
    return `${state.data.source[j]} ${formatNumber(weight)}`;
  }

  function choose(index) {
    if (index === state.chosen || !state.data || state.data.error) return;
    state.chosen = index;
    draw();
  }

  /** The links, from each source word's foot to each target word's head; only the chosen word's when one is. */
  function draw() {
    const { weights, source: words, target: written } = state.data;
    const m = words.length;
    const box = body.getBoundingClientRect();
    const at = (node, top) => {
      const r = node.getBoundingClientRect();
      return [r.left + r.width / 2 - box.left + body.scrollLeft, (top ? r.top : r.bottom) - box.top];
    };
    svg.setAttribute('width', String(body.scrollWidth));
    svg.setAttribute('height', String(body.scrollHeight));
    const lines = [];
    const rows = state.chosen === null ? written.map((_, i) => i) : [state.chosen];
    for (const i of rows) {
      const [x2, y2] = at(state.words.target[i], true);
      let best = 0;
      for (let j = 1; j < m; j++) if (weights[i * m + j] > weights[i * m + best]) best = j;
      for (let j = 0; j < m; j++) {
        const weight = weights[i * m + j];
        if (weight < MIN_WEIGHT && j !== best) continue;
        const [x1, y1] = at(state.words.source[j], false);
        const line = document.createElementNS('http://www.w3.org/2000/svg', 'line');
        Object.entries({ x1, y1, x2, y2 }).forEach(([k, v]) => line.setAttribute(k, v.toFixed(1)));
        line.setAttribute('stroke', j === best ? 'var(--mh-accent, #0072b2)' : 'var(--mh-fg, #222)');
        line.setAttribute('stroke-width', j === best ? '2.5' : '1.5');
        line.setAttribute('stroke-opacity', Math.max(weight, j === best ? 0.6 : 0).toFixed(3));
        lines.push(line);
      }
    }
    svg.replaceChildren(...lines);
    state.words.target.forEach((w, i) => w.setAttribute('aria-pressed', String(i === state.chosen)));
    const read = state.chosen === null ? [] : strongest(state.chosen).map(({ j }) => j);
    state.words.source.forEach((w, j) => w.classList.toggle('mh-alignment-read', read.includes(j)));
    readout.textContent = state.chosen === null ? 'Point at a target word.'
      : `${written[state.chosen]} reads ${strongest(state.chosen).map(linkText).join(', ')}`;
  }

  return {
    update,
    destroy() {
      root.replaceChildren();
    },
  };
}

function wrap(node) {
  const item = document.createElement('li');
  item.append(node);
  return item;
}
