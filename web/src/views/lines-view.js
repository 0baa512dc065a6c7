// The "lines" view (like bertviz's head view): the query tokens on the left and the key tokens on
// the right (the same list twice in self-attention), joined by lines whose opacity is the attention weight, one colour per head. The
// tokens are DOM elements (readable, selectable, testable); only the lines are on a canvas.
// Hovering or keyboard-focusing a query shows its lines, clicking pins it; hovering a key shows
// the lines into it. It deliberately does not print numbers (the heatmaps do), does not let the
// user pick heads (the page passes `heads`), and does not listen to resizes (the page calls
// update() again). Past ALL_LINES_UP_TO queries it draws the lines of one query (or into one key)
// at a time, the last query's until another is pointed at: 1024 queries of 14 heads would be over
// a million lines on a canvas 22,528 pixels tall, seconds of rasterising for a solid block.
import { headColor } from './colormap.js';
import { axes, el, sameAxes, tokenLabel } from './dom.js';

const ROW = 22; // CSS px per token row
const MIN_WEIGHT = 0.01; // lighter lines are invisible anyway; skipping them keeps n = 64 cheap
const FADE = 0.06; // opacity factor for the lines outside the highlight
const LEVELS = 64; // opacities are bucketed so each frame is a few strokes, not 16k
const MAX_CANVAS = 360; // wider only flattens the lines
const ALL_LINES_UP_TO = 256; // queries whose lines are all drawn at once

export const LINES_CSS = `
.mh-lines { color: var(--mh-fg, #222); font: 13px/1.2 var(--mh-font-mono, ui-monospace, monospace); }
.mh-lines-note { margin: 0 0 0.5rem; font: 12px/1.4 var(--mh-font, system-ui, sans-serif); }
.mh-lines-heads { display: flex; flex-wrap: wrap; gap: 0.25rem 0.9rem; list-style: none; margin: 0 0 0.5rem; padding: 0; font-size: 12px; }
.mh-lines-swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.35em; border-radius: 2px; vertical-align: -0.1em; }
.mh-lines-body { display: grid; align-items: start; }
.mh-lines-col { list-style: none; margin: 0; padding: 0; min-width: 0; }
.mh-lines-col > li { height: ${ROW}px; }
.mh-lines-query, .mh-lines-key { display: block; box-sizing: border-box; width: 100%; height: ${ROW}px; margin: 0;
  padding: 0 0.4em; border: 1px solid transparent; border-radius: 3px; overflow: hidden; white-space: nowrap;
  text-overflow: ellipsis; font: inherit; line-height: ${ROW - 2}px; color: inherit; background: none; }
.mh-lines-query { text-align: right; cursor: pointer; }
.mh-lines-key { text-align: left; }
.mh-lines-query:hover, .mh-lines-col .mh-active { background: color-mix(in srgb, var(--mh-accent, #0072b2) 18%, transparent); }
.mh-lines-query[aria-pressed="true"] { border-color: var(--mh-accent, #0072b2); font-weight: bold; }
.mh-lines-query:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: -2px; }
.mh-lines-canvas { display: block; }
`;

export function createLinesView(root, options = {}) {
  const state = {
    data: null, nQueries: 0, nKeys: 0, canvasWidth: 0,
    hoverQuery: null, hoverKey: null, focusQuery: null, pinned: null, frame: 0,
  };
  root.replaceChildren();
  root.classList.add('mh-lines');
  const note = el('p', 'mh-lines-note');
  const heads = el('ul', 'mh-lines-heads');
  heads.setAttribute('aria-label', 'head colours');
  const body = el('div', 'mh-lines-body');
  const queries = el('ol', 'mh-lines-col mh-lines-queries');
  queries.setAttribute('aria-label', 'queries');
  const canvas = el('canvas', 'mh-lines-canvas');
  canvas.setAttribute('role', 'img');
  const keys = el('ol', 'mh-lines-col mh-lines-keys');
  keys.setAttribute('aria-label', 'keys');
  body.append(queries, canvas, keys);
  root.append(note, heads, body);

  const listeners = {
    pointerover: (e) => hover(e.target),
    pointerleave: () => hover(null),
    focusin: (e) => { state.focusQuery = keyboardFocused(e.target); schedule(); },
    focusout: () => { state.focusQuery = null; schedule(); },
    click: (e) => { const i = indexOf(e.target, '.mh-lines-query'); if (i !== null) pin(state.pinned === i ? null : i); },
    keydown: onKeydown,
  };
  for (const [type, fn] of Object.entries(listeners)) body.addEventListener(type, fn);

  function update(data) {
    const previous = state.data;
    state.data = data;
    const shown = axes(data);
    if (!sameAxes(previous, data)) {
      state.nQueries = shown.queries.length;
      state.nKeys = shown.keys.length;
      state.hoverQuery = state.hoverKey = state.focusQuery = null;
      if (state.pinned !== null) pin(null);
      renderTokens(shown);
    }
    renderHeads(data.heads);
    note.hidden = state.nQueries <= ALL_LINES_UP_TO;
    note.textContent = `${state.nQueries} queries: the lines of one at a time. Point at a query or a key, or move through the queries with the keyboard.`;
    layout(root.clientWidth, Math.max(state.nQueries, state.nKeys));
    const names = data.heads.map((h) => h + 1).join(', ');
    canvas.setAttribute('aria-label', `attention from each query to each key, head${data.heads.length > 1 ? 's' : ''} ${names}`);
    draw();
  }

  function renderTokens(shown) {
    queries.replaceChildren(...shown.queries.map((t, i) => li(token('button', 'mh-lines-query', t, shown.queryUnknown[i], i))));
    keys.replaceChildren(...shown.keys.map((t, i) => li(token('span', 'mh-lines-key', t, shown.keyUnknown[i], i))));
  }

  function token(tag, className, text, isUnknown, i) {
    const node = tokenLabel(tag, text, isUnknown);
    node.classList.add(className);
    node.dataset.index = String(i);
    if (tag === 'button') {
      node.type = 'button';
      node.setAttribute('aria-label', `query "${text}"`);
      node.setAttribute('aria-pressed', 'false');
    }
    return node;
  }

  function renderHeads(list) {
    heads.hidden = list.length < 2;
    heads.replaceChildren(...(list.length < 2 ? [] : list.map((h) => {
      const item = el('li', 'mh-lines-head');
      const swatch = el('span', 'mh-lines-swatch');
      swatch.style.background = headColor(h);
      item.append(swatch, `head ${h + 1}`);
      return item;
    })));
  }

  // Token columns take what they need up to ~30% each; the canvas gets the rest; n rows tall.
  function layout(width, n) {
    const col = Math.max(56, Math.min(150, Math.floor(width * 0.3)));
    state.canvasWidth = Math.max(40, Math.min(MAX_CANVAS, width - 2 * col));
    body.style.gridTemplateColumns = `${col}px ${state.canvasWidth}px ${col}px`;
    const dpr = globalThis.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(state.canvasWidth * dpr));
    canvas.height = Math.max(1, Math.round(n * ROW * dpr));
    canvas.style.width = `${state.canvasWidth}px`;
    canvas.style.height = `${n * ROW}px`;
  }

  // What to highlight: the pointer wins over keyboard focus, which wins over the pin.
  // Past ALL_LINES_UP_TO queries there is always one: the last query by default.
  function highlight() {
    if (state.hoverQuery !== null) return { query: state.hoverQuery };
    if (state.hoverKey !== null) return { key: state.hoverKey };
    if (state.focusQuery !== null) return { query: state.focusQuery };
    if (state.pinned !== null) return { query: state.pinned };
    return state.nQueries > ALL_LINES_UP_TO ? { query: state.nQueries - 1 } : null;
  }

  function draw() {
    if (state.frame) cancelAnimationFrame(state.frame);
    state.frame = 0;
    const { data, nQueries, nKeys, canvasWidth: w } = state;
    const dpr = globalThis.devicePixelRatio || 1;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, Math.max(nQueries, nKeys) * ROW);
    const focus = highlight();
    const inFocus = (i, j) => !focus || focus.query === i || focus.key === j;
    // Past ALL_LINES_UP_TO queries only the highlighted row or column is drawn, not the faded rest.
    const onlyFocus = nQueries > ALL_LINES_UP_TO;
    const range = (count, one) => (onlyFocus && one !== undefined ? [one, one + 1] : [0, count]);
    const [i0, i1] = range(nQueries, focus?.query), [j0, j1] = range(nKeys, focus?.key);
    ctx.lineWidth = focus ? 2 : 1.5;
    let strong = 0;
    for (const head of data.heads) {
      const values = data.weights[head];
      const paths = new Array(LEVELS + 1).fill(null);
      for (let i = i0; i < i1; i++) {
        for (let j = j0; j < j1; j++) {
          const v = values[i * nKeys + j];
          if (!(v > MIN_WEIGHT)) continue;
          const shown = inFocus(i, j);
          const level = Math.round(Math.min(1, shown ? v : v * FADE) * LEVELS);
          if (level === 0) continue;
          if (shown) strong++;
          const path = (paths[level] ??= new Path2D());
          path.moveTo(1, (i + 0.5) * ROW);
          path.lineTo(w - 1, (j + 0.5) * ROW);
        }
      }
      ctx.strokeStyle = headColor(head);
      paths.forEach((path, level) => {
        if (!path) return;
        ctx.globalAlpha = level / LEVELS;
        ctx.stroke(path);
      });
    }
    ctx.globalAlpha = 1;
    canvas.dataset.lines = String(strong); // for tests: lines drawn at full strength
    markTokens(focus);
  }

  function markTokens(focus) {
    queries.querySelectorAll('.mh-lines-query').forEach((b, i) => b.classList.toggle('mh-active', focus?.query === i));
    keys.querySelectorAll('.mh-lines-key').forEach((s, j) => s.classList.toggle('mh-active', focus?.key === j));
  }

  // Many pointer and focus events can arrive in one frame; draw once.
  function schedule() {
    if (!state.frame && state.data) state.frame = requestAnimationFrame(draw);
  }

  function hover(target) {
    state.hoverQuery = target ? indexOf(target, '.mh-lines-query') : null;
    state.hoverKey = target ? indexOf(target, '.mh-lines-key') : null;
    schedule();
  }

  function pin(i) {
    if (state.pinned !== null) queries.children[state.pinned]?.firstChild.setAttribute('aria-pressed', 'false');
    state.pinned = i;
    if (i !== null) queries.children[i].firstChild.setAttribute('aria-pressed', 'true');
    schedule();
    options.onSelect?.(i);
  }

  // A mouse click also focuses the button; only keyboard focus should hold a highlight, or
  // unpinning by click would look like it did nothing until the user clicked elsewhere.
  function keyboardFocused(target) {
    const i = indexOf(target, '.mh-lines-query');
    return i !== null && target.matches(':focus-visible') ? i : null;
  }

  function onKeydown(e) {
    const i = indexOf(e.target, '.mh-lines-query');
    if (i === null || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(state.nQueries - 1, i + (e.key === 'ArrowUp' ? -1 : 1)));
    queries.children[next].firstChild.focus();
  }

  function indexOf(target, selector) {
    const node = target.closest?.(selector);
    return node && body.contains(node) ? Number(node.dataset.index) : null;
  }

  function destroy() {
    if (state.frame) cancelAnimationFrame(state.frame);
    for (const [type, fn] of Object.entries(listeners)) body.removeEventListener(type, fn);
    root.replaceChildren();
    root.classList.remove('mh-lines');
  }

  return { update, destroy };
}

function li(child) {
  const item = document.createElement('li');
  item.append(child);
  return item;
}
