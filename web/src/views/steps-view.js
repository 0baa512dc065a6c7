// The four steps of one multi-head attention layer, in order, as small labelled heatmaps: the
// input X; each head's Q_i, K_i, V_i; each head's weights A_i and output A_i·V_i; the concatenation
// and the output. Hovering (or arrow-keying through) an output row traces it back through every
// step, so a learner sees which rows of which matrices it was computed from.
// It computes nothing (the engine does), does not show the raw scores or the weight matrices
// W_q, W_k, W_v, W_o, and redraws everything on update() (sizes depend on root's width).
import { createLegend, formatNumber, headColor, signedScale, weightScale } from './colormap.js';
import { MatrixCanvas } from './matrix-canvas.js';
import { paintQueue } from './paint-queue.js';
import { axes, el, tokenLabel } from './dom.js';

const SUBSCRIPTS = '₀₁₂₃₄₅₆₇₈₉';
const HINT = 'Hover over a row of the output, or focus it and use the ↑ ↓ keys, to see what it comes from.';
const MIN_ALL_ROWS_MARK = 12; // px: thinner rows outlined one by one turn into a mesh hiding the values

const sub = (k) => String(k).replace(/\d/g, (d) => SUBSCRIPTS[d]);
const shapeText = (rows, cols) => `${rows} × ${cols}`;
const quoted = (text) => `“${text}”`;

/** Cell and label sizes for the current width: every matrix shares one row height, so rows line up. */
function layout(data, width) {
  const { queries, keys } = axes(data);
  const n = Math.max(queries.length, keys.length), big = data.numbers;
  const maxCell = big ? 34 : 14;
  const longest = Math.max(1, ...queries.map((t) => t.length), ...keys.map((t) => t.length));
  const labelW = Math.round(Math.min(big ? 90 : 72, Math.max(24, longest * 6.5 + 8)));
  const room = Math.max(60, width - labelW - 12);
  const rowH = Math.min(maxCell, (big ? maxCell * n : 240) / n);
  // Q, K, V of a head side by side (and Q, K before RoPE); with many heads, narrower so several share a line.
  const figures = data.rotation ? 5 : 3;
  const headsPerLine = Math.max(1, Math.min(data.numHeads, Math.floor(width / (data.numHeads > 4 ? 220 : 300) / (figures / 3))));
  const perHead = big ? room : Math.max(40, Math.min(120, (width / headsPerLine - labelW - 50) / figures));
  return {
    maxCell, labelW, rowH,
    wide: Math.min(room, big ? Math.max(260, maxCell * data.dModel) : 260),
    narrow: Math.min(room, perHead),
    // Square cells when there is room; on a phone narrower, so A_i stays beside A_i·V_i.
    square: big ? Math.min(room, maxCell * keys.length) : Math.min(rowH * keys.length, Math.max(60, room - perHead - 20)),
  };
}

/** "0.0316" or "1.0e-4": a frequency in radians per position. */
const radians = (v) => (v >= 0.001 ? v.toPrecision(3) : v.toExponential(1));
/** Tokens per full turn at `frequency` radians per token, rounded: "6.3", "63,000". */
const turn = (frequency) => {
  const tokens = (2 * Math.PI) / frequency;
  return tokens < 100 ? tokens.toPrecision(2) : Math.round(tokens).toLocaleString('en');
};

/**
 * What RoPE does to this layer's queries and keys, as a sentence: which dimensions rotate, in which
 * pairs, and how fast the fastest and the slowest pair turn.
 */
function rotationText({ dimensions: r, frequencies: f }, dHead) {
  const rest = r < dHead ? `; the other ${dHead - r} pass through unturned` : '';
  return ` Then RoPE turns each query and key by its position: the first ${r} of each head's ${dHead} dimensions rotate in pairs ` +
    `(i, i + ${r / 2}), pair i by position × θᵢ radians, from θ₀ = ${radians(f[0])} (a full turn every ${turn(f[0])} tokens) ` +
    `down to θ${sub(r / 2 - 1)} = ${radians(f[f.length - 1])} (one every ${turn(f[f.length - 1])})${rest}. A query's score against a ` +
    'key then depends on how far apart the two are. Each head shows Q and K before the rotation and after it.';
}

/** The one plain sentence of each step. */
function sentences({ dModel, numHeads: H, numKeyValueHeads: G = H, dHead, inputLabel, rotation }) {
  const shared = G === H ? ', so every head gets its own queries Q, keys K and values V.'
    : `: every head gets its own queries Q, but K and V have only ${G} ${G === 1 ? 'head' : 'heads'}, ` +
      `each shared by ${H / G} query heads.`;
  return [
    `Each token becomes one row of ${dModel} numbers (${inputLabel}); stacked, the rows form X.`,
    `X is multiplied by three weight matrices and each result is split into ${H} ${H === 1 ? 'head' : 'heads'} ` +
      `of ${dHead} columns${shared}${rotation ? rotationText(rotation, dHead) : ''}`,
    'Each head compares every query with every key, softmax turns each row of scores into weights that add up ' +
      'to 1, and those weights mix the rows of V into the head output.',
    H === 1
      ? 'With one head there is nothing to put side by side, so concat is the head output; one final linear ' +
        'projection mixes it into the layer output, the same shape as X.'
      : `The ${H} head outputs are put side by side (concatenated), and one final linear projection mixes them ` +
        'into the layer output, the same shape as X.',
  ];
}

export function createStepsView(root, options = {}) {
  const { headingLevel = 3 } = options;
  const state = { data: null, sizes: null, figures: null, readouts: [], trace: null, traced: null, paints: [] };
  // Qwen2.5 at 1024 tokens has 14 heads of 1024 × 1024 weights here: painted a slice a frame.
  const queue = paintQueue(root);
  root.replaceChildren();
  root.classList.add('mh-steps');

  /** Token names down the left of a matrix; thinned out when rows are too thin for text. */
  function rowLabels(mc, tokens, unknown) {
    const box = el('div', 'mh-rowlabels');
    const h = mc.cellHeight, every = Math.ceil(9 / h);
    Object.assign(box.style, { width: `${state.sizes.labelW}px`, height: `${h * mc.rows}px` });
    for (let i = 0; i < mc.rows; i += every) {
      const label = tokenLabel('span', tokens[i], unknown[i]);
      label.style.top = `${(i + 0.5) * h}px`;
      label.style.fontSize = `${Math.max(8, Math.min(11, h * 0.8))}px`;
      label.style.maxWidth = `${state.sizes.labelW - 3}px`;
      box.append(label);
    }
    return box;
  }

  /** Token names along the top of a matrix with a column per token, only when the columns are wide enough to read. */
  function colLabels(mc, tokens, unknown) {
    const w = mc.cellWidth;
    if (w < 11) return null;
    const box = el('div', 'mh-collabels');
    const height = Math.min(60, Math.max(...tokens.map((t) => t.length)) * 6.5 + 6);
    Object.assign(box.style, { width: `${w * mc.cols}px`, height: `${height}px` });
    tokens.forEach((token, j) => {
      const label = tokenLabel('span', token, unknown[j]);
      Object.assign(label.style, { left: `${j * w}px`, width: `${w}px`, lineHeight: `${w}px`,
        maxHeight: `${height - 2}px`, fontSize: `${Math.min(11, w * 0.8)}px` });
      box.append(label);
    });
    return box;
  }

  /**
   * One captioned heatmap with a row per query token, or per key token for K and V (spec.keyRows).
   * spec: kind, name, title, values, cols, scale, maxWidth, step, keyRows, rowLabels, colLabels (the keys).
   */
  function figure(spec) {
    const { queries, queryUnknown, keys, keyUnknown } = axes(state.data), s = state.sizes;
    const [tokens, unknown] = spec.keyRows ? [keys, keyUnknown] : [queries, queryUnknown], n = tokens.length;
    const fig = el('figure', `mh-fig mh-fig-${spec.kind}`);
    const caption = el('figcaption', '', `${spec.name} ${spec.title} `);
    caption.append(el('span', 'mh-shape', shapeText(n, spec.cols)));
    const mc = new MatrixCanvas({ label: `${spec.name}, ${spec.title}, ${shapeText(n, spec.cols)}`,
      maxCell: s.maxCell, numbers: state.data.numbers });
    mc.draw(spec.values, n, spec.cols, spec.scale, { maxWidth: spec.maxWidth, maxHeight: s.rowH * n, paint: (job) => state.paints.push(job) });
    const body = el('div', 'mh-fig-body');
    const top = spec.colLabels ? colLabels(mc, keys, keyUnknown) : null;
    if (top) body.append(top);
    if (spec.rowLabels) body.append(rowLabels(mc, tokens, unknown));
    body.append(mc.element);
    fig.append(caption, body);
    mc.element.addEventListener('pointermove', (e) => readCell(spec, mc, mc.cellAt(e.clientX, e.clientY)));
    mc.element.addEventListener('pointerleave', () => { state.readouts[spec.step].textContent = ''; });
    return { fig, mc, spec };
  }

  function readCell(spec, mc, cell) {
    if (!cell) return;
    const { queries, keys } = axes(state.data), { row, col } = cell;
    const colName = spec.kind === 'weights' ? `col ${col + 1} ${quoted(keys[col])}` : `col ${col + 1}`;
    state.readouts[spec.step].textContent =
      `${spec.name} row ${quoted((spec.keyRows ? keys : queries)[row])}, ${colName}: ${formatNumber(mc.valueAt(row, col))}`;
  }

  function heading(text) {
    return el(`h${Math.min(6, headingLevel + 1)}`, 'mh-step-heading', text);
  }

  /** One <li>: heading, sentence, optional formula, figures, hover readout, legends of the scales first used here. */
  function step(index, title, sentence, content, legends, formula) {
    const li = el('li', `mh-step mh-step-${index + 1}`);
    li.append(heading(title), el('p', 'mh-step-text', sentence));
    if (formula) {
      const p = el('p', 'mh-formula');
      p.append(...formula.flatMap((part, i) => [i ? ',  ' : '', el('span', '', part)]));
      li.append(p);
    }
    state.readouts[index] = el('p', 'mh-readout'); // not live: it changes on every pointer move
    li.append(content, state.readouts[index]);
    if (legends.length) {
      const box = el('div', 'mh-legends');
      box.append(...legends.map(([scale, label]) => createLegend(scale, { label })));
      li.append(box);
    }
    return li;
  }

  /** A wrapping row of per-head groups, each with its head's colour and "head i" name. */
  function heads(build) {
    const box = el('div', 'mh-heads');
    for (let h = 0; h < state.data.numHeads; h++) {
      const group = el('div', 'mh-head');
      group.style.setProperty('--mh-head-color', headColor(h));
      const figs = el('div', 'mh-figures');
      figs.append(...build(h).map((f) => f.fig));
      group.append(el('p', 'mh-head-name', `head ${h + 1}`), figs);
      box.append(group);
    }
    return box;
  }

  function row(...figs) {
    const box = el('div', 'mh-figures');
    box.append(...figs.map((f) => f.fig));
    return box;
  }

  function render() {
    const d = state.data, s = state.sizes, H = d.numHeads, k = (h) => sub(h + 1), nKeys = axes(d).keys.length;
    state.paints = [];
    // K and V are named by their key/value head: with fewer of them, several query heads share one.
    const kvName = (h) => sub((d.kvHeads?.[h] ?? h) + 1);
    const scales = {
      input: signedScale(d.input), weights: weightScale(), output: signedScale(d.output),
      qkv: signedScale(...d.queries, ...d.keys, ...d.values, ...d.queriesBeforeRotation ?? [], ...d.keysBeforeRotation ?? []),
      heads: signedScale(...d.headOutputs, d.concat),
    };
    const f = { q: [], k: [], v: [], q0: [], k0: [], weights: [], heads: [] };
    const add = (list, spec) => { const made = figure(spec); list.push(made); return made; };
    f.input = figure({ kind: 'input', name: 'X', title: `(${d.inputLabel})`, values: d.input, cols: d.dModel,
      scale: scales.input, maxWidth: s.wide, step: 0, rowLabels: true });
    // K and V of a key/value head that several query heads read say so: the same matrices feed each.
    const sharers = (h) => (d.kvHeads ?? []).flatMap((g, i) => (g === d.kvHeads[h] ? [i + 1] : []));
    const sharedBy = (h) => (sharers(h).length > 1 ? `, shared by heads ${sharers(h)[0]}–${sharers(h).at(-1)}` : '');
    const parts = d.rotation
      ? [['q0', 'Q', 'queries before RoPE', d.queriesBeforeRotation], ['q', 'Q', 'queries, rotated', d.queries],
        ['k0', 'K', 'keys before RoPE', d.keysBeforeRotation], ['k', 'K', 'keys, rotated', d.keys], ['v', 'V', 'values', d.values]]
      : [['q', 'Q', 'queries', d.queries], ['k', 'K', 'keys', d.keys], ['v', 'V', 'values', d.values]];
    const query = (kind) => kind === 'q' || kind === 'q0';
    const qkv = heads((h) => parts.map(([kind, letter, title, all]) => add(f[kind], {
        kind, name: `${letter}${query(kind) ? k(h) : kvName(h)}`, title: query(kind) ? title : `${title}${sharedBy(h)}`, values: all[h],
        keyRows: !query(kind), cols: d.dHead, scale: scales.qkv, maxWidth: s.narrow, step: 1,
        rowLabels: kind === parts[0][0] || (kind === 'k' && d.keyTokens !== undefined) })));
    const attention = heads((h) => [
      add(f.weights, { kind: 'weights', name: `A${k(h)}`, title: 'weights', values: d.weights[h],
        cols: nKeys, scale: scales.weights, maxWidth: s.square, step: 2, rowLabels: true, colLabels: true }),
      add(f.heads, { kind: 'head', name: `A${k(h)}V${k(h)}`, title: 'head output', values: d.headOutputs[h],
        cols: d.dHead, scale: scales.heads, maxWidth: s.narrow, step: 2 }),
    ]);
    const concatTitle = H === 1 ? '(the head output)' : `(heads 1–${H} side by side)`;
    f.concat = figure({ kind: 'concat', name: 'concat', title: concatTitle,
      values: d.concat, cols: H * d.dHead, scale: scales.heads, maxWidth: s.wide, step: 3, rowLabels: true });
    f.output = figure({ kind: 'output', name: 'output', title: '(concat · Wₒ + bₒ)', values: d.output,
      cols: d.dModel, scale: scales.output, maxWidth: s.wide, step: 3, rowLabels: true });
    state.figures = f;
    state.trace = el('p', 'mh-trace', HINT);
    state.trace.setAttribute('aria-live', 'polite');
    const finalRow = row(f.concat, f.output);
    const list = el('ol', 'mh-steps-list');
    const text = sentences(d);
    list.append(
      step(0, 'The input X', text[0], row(f.input), [[scales.input, 'X values']]),
      step(1, 'Queries, keys and values for each head', text[1], qkv, [[scales.qkv, 'Q, K, V values']]),
      step(2, 'Attention in each head', text[2], attention,
        [[scales.weights, 'attention weight'], [scales.heads, 'head output and concat values']],
        [`Aᵢ = softmax(Qᵢ Kᵢᵀ / √${d.dHead})`, 'head output = Aᵢ Vᵢ']),
      step(3, 'Concatenate the heads and project', text[3], finalRow, [[scales.output, 'output values']]),
    );
    state.readouts[3].after(state.trace);
    const title = el(`h${headingLevel}`, 'mh-steps-title',
      d.title ? `${d.title}: the four steps of multi-head attention` : 'The four steps of multi-head attention');
    root.replaceChildren(title, list);
    makeTraceable(f.output.mc);
    queue.start(state.paints);
  }

  /** Marks, in every step, the rows the output row `r` is computed from; null clears. */
  function trace(r) {
    state.traced = r;
    const f = state.figures, d = state.data, on = r !== null;
    const one = { rows: on ? [r] : [], dim: on };
    for (const e of [f.output, f.concat, ...f.heads, ...f.weights, ...f.q, ...f.q0]) e.mc.mark(one);
    const seen = on ? keysSeen(r) : [], all = seen.length === axes(d).keys.length;
    // Thin rows cannot be outlined one by one (the outlines would hide the values): K and V then stay
    // unmarked, and the caption alone says which of their rows take part.
    const kv = state.sizes.rowH >= MIN_ALL_ROWS_MARK ? { rows: seen, dim: !all } : {};
    for (const e of [...f.k, ...f.k0, ...f.v]) e.mc.mark(kv);
    f.input.mc.mark({ rows: on ? [r] : [] });
    state.trace.textContent = on ? explain(r, all ? 'every row' : `the ${seen.length} visible rows`) : HINT;
  }

  /** Key rows with a non-zero weight in some head: all of them, unless a mask hides later tokens. */
  function keysSeen(r) {
    const n = axes(state.data).keys.length;
    return Array.from({ length: n }, (_, j) => j).filter((j) => state.data.weights.some((w) => w[r * n + j] > 0));
  }

  function explain(r, keys) {
    const token = quoted(state.data.tokens[r]), i = r + 1;
    return `Output row for ${token}: it comes from row ${i} of concat, i.e. row ${i} of every head output, ` +
      `where row ${i} of Aᵢ (query row ${i} of Qᵢ against ${keys} of Kᵢ) mixes the same rows of Vᵢ. ` +
      `X is not dimmed: its row ${i} gives the query, but its rows also feed K and V.`;
  }

  function makeTraceable(mc) {
    const node = mc.element, n = state.data.tokens.length;
    node.tabIndex = 0;
    node.setAttribute('role', 'group');
    node.setAttribute('aria-label',
      `Output, ${shapeText(n, state.data.dModel)}: arrow keys up and down trace a row back through the steps`);
    node.addEventListener('pointermove', (e) => {
      const cell = mc.cellAt(e.clientX, e.clientY);
      if (cell && cell.row !== state.traced) trace(cell.row);
    });
    node.addEventListener('pointerleave', (e) => { if (e.pointerType !== 'touch') trace(null); });
    // A click focuses too; only keyboard focus starts tracing at the first row.
    node.addEventListener('focus', () => { if (state.traced === null && node.matches(':focus-visible')) trace(0); });
    node.addEventListener('blur', () => trace(null));
    node.addEventListener('keydown', (e) => {
      const moves = { ArrowDown: 1, ArrowUp: -1, Home: -n, End: n };
      if (e.key in moves) {
        trace(Math.max(0, Math.min(n - 1, (state.traced ?? (moves[e.key] > 0 ? -1 : n)) + moves[e.key])));
      } else if (e.key === 'Escape' && state.traced !== null) {
        trace(null);
      } else return;
      e.preventDefault();
    });
  }

  function update(data) {
    const active = root.getRootNode().activeElement;
    const refocus = state.figures && active === state.figures.output.mc.element ? state.traced : null;
    state.data = { inputLabel: 'word embedding + positional embedding', title: '', numbers: false, ...data };
    state.sizes = layout(state.data, root.clientWidth || 600);
    state.traced = null;
    if (data.tokens.length === 0) {
      queue.cancel();
      state.figures = null;
      root.replaceChildren(el('p', 'mh-steps-empty', 'No tokens: there is nothing to compute.'));
      return;
    }
    render();
    if (refocus !== null) {
      state.traced = Math.min(refocus, data.tokens.length - 1);
      state.figures.output.mc.element.focus();
      trace(state.traced);
    }
  }

  function destroy() {
    queue.cancel();
    root.replaceChildren();
    root.classList.remove('mh-steps');
    Object.assign(state, { data: null, figures: null, readouts: [], trace: null, traced: null });
  }

  return { update, destroy };
}

export const STEPS_CSS = `
.mh-steps { color: var(--mh-fg, #222); }
.mh-steps .mh-steps-title { margin: 0 0 0.5em; font-size: 1.1em; }
.mh-steps .mh-steps-list { list-style: none; margin: 0; padding: 0; counter-reset: mh-step; }
.mh-steps .mh-step { counter-increment: mh-step; border-top: 1px solid var(--mh-border, #ccc); padding: 0.6em 0 0.8em; }
.mh-steps .mh-step-heading { margin: 0 0 0.25em; font-size: 1em; }
.mh-steps .mh-step-heading::before { content: counter(mh-step); display: inline-block; min-width: 1.5em;
  line-height: 1.5em; margin-right: 0.4em; border-radius: 50%; text-align: center; font-size: 0.85em;
  background: var(--mh-accent, #0072b2); color: var(--mh-bg, #fff); }
.mh-steps .mh-step-text { margin: 0 0 0.5em; max-width: 48em; }
.mh-steps .mh-formula { margin: 0 0 0.5em; font-family: var(--mh-font-mono, ui-monospace, monospace);
  font-size: 0.9em; color: var(--mh-muted, #666); }
.mh-steps .mh-formula > span { white-space: nowrap; }
.mh-steps .mh-heads, .mh-steps .mh-figures { display: flex; flex-wrap: wrap; gap: 10px 16px; }
.mh-steps .mh-heads { align-items: flex-start; gap: 14px 22px; }
.mh-steps .mh-figures { align-items: flex-end; } /* captions may wrap; the matrices' rows still line up */
.mh-steps .mh-head { border-left: 3px solid var(--mh-head-color, var(--mh-border, #ccc)); padding-left: 6px; }
.mh-steps .mh-head-name { margin: 0 0 2px; font-size: 0.8em; font-weight: 600; }
.mh-steps .mh-fig { margin: 0; }
/* width 0 + min-width 100%: the caption wraps to its matrix's width instead of widening the figure */
.mh-steps .mh-fig figcaption { width: 0; min-width: 100%; margin-bottom: 3px; font-size: 0.8em; }
.mh-steps .mh-shape { color: var(--mh-muted, #666); font-family: var(--mh-font-mono, ui-monospace, monospace);
  white-space: nowrap; }
.mh-steps .mh-fig-body { display: grid; grid-template-areas: ". cols" "rows mat"; justify-content: start; }
.mh-steps .mh-fig-body > .mh-matrix { grid-area: mat; }
.mh-steps .mh-rowlabels { grid-area: rows; position: relative; }
.mh-steps .mh-rowlabels > span { position: absolute; right: 3px; transform: translateY(-50%); line-height: 1.1;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.mh-steps .mh-collabels { grid-area: cols; position: relative; }
.mh-steps .mh-collabels > span { position: absolute; bottom: 2px; writing-mode: vertical-rl; transform: rotate(180deg);
  text-align: left; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.mh-steps .mh-matrix[tabindex] { cursor: crosshair; }
.mh-steps .mh-matrix[tabindex]:focus-visible { outline: 2px solid var(--mh-accent, #0072b2); outline-offset: 2px; }
.mh-steps .mh-legends { display: flex; flex-wrap: wrap; gap: 0 24px; }
.mh-steps .mh-legend canvas { border: 1px solid var(--mh-border, #ccc); box-sizing: border-box; }
.mh-steps .mh-readout { min-height: 1.3em; margin: 0.3em 0 0; font-family: var(--mh-font-mono, ui-monospace, monospace);
  font-size: 0.8em; color: var(--mh-muted, #666); overflow-wrap: anywhere; }
.mh-steps .mh-trace { margin: 0.2em 0 0; font-size: 0.85em; max-width: 48em; min-height: 3.9em; }
`;
