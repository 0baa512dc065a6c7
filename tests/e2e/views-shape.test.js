// The views and the exports given attention that is not square: the last 2 tokens of 6 as queries
// against all 6 as keys, at positions 4 and 5, as a step of generation reads its cached keys.
// The numbers come from a causal layer of 4 query heads on 2 key/value heads run by the engine in
// this Node process; the views (by their names in views.js) are imported unbundled into
// tests/e2e/pages/views.html.
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { layerMatrices } from '../../web/src/views/view-data.js';
import { randomValues } from '../js/helpers.js';
import { launchBrowser, screenshot } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const KEYS = ['The', 'cat', 'sat', 'on', 'the', 'mat'];
const QUERIES = KEYS.slice(4);
const D = 16, HEADS = 4, KV_HEADS = 2, HEAD_DIM = 4, POSITION = 4;

let browser, server, engine, page, problems, layer;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, server] = await Promise.all([launchBrowser(), startServer({ root: REPO })]);
  const attention = engine.createAttention({ dModel: D, numHeads: HEADS, numKeyValueHeads: KV_HEADS, causal: true, seed: 3 });
  const x = randomValues(KEYS.length * D, 21);
  const xq = x.slice(POSITION * D);
  layer = layerMatrices(attention.forward(xq, QUERIES.length, { keyValueInput: x, nKeys: KEYS.length, queryPosition: POSITION }), xq);
  attention.dispose();
  ({ page, problems } = await browser.open(`${server.url}tests/e2e/pages/views.html`, { width: 900, height: 1400 }));
});

afterAll(async () => {
  await page?.close();
  engine?.dispose();
  await Promise.all([browser?.close(), server?.close()]);
});

/** Every Float32Array in `value` as a plain array, to cross into the page (which turns them back). */
function plain(value) {
  if (value instanceof Float32Array) return { f32: Array.from(value) };
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** Runs `body(modules, data)` in the page, with the views and export modules and `data` revived. */
function inPage(body, data) {
  return page.evaluate(async ({ source, data }) => {
    const revive = (v) => (v?.f32 ? Float32Array.from(v.f32)
      : Array.isArray(v) ? v.map(revive)
      : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, w]) => [k, revive(w)])) : v);
    const { VIEWS } = await import('/web/src/views/views.js');
    const modules = {
      createGridView: VIEWS.grid, createHeadView: VIEWS.head, createLinesView: VIEWS.lines, createStepsView: VIEWS.steps,
      ...(await import('/web/src/views/export.js')), ...(await import('/web/src/views/model-figure.js')),
    };
    return new Function('modules', 'data', `return (${source})(modules, data);`)(modules, revive(data));
  }, { source: body.toString(), data: plain(data) });
}

const common = () => ({ tokens: QUERIES, unknown: [false, false], keyTokens: KEYS, causal: true, queryOffset: POSITION });

test('the engine gave 2 × 6 weights whose masked cells are the keys after each query', () => {
  expect(layer.weights).toHaveLength(HEADS);
  for (const w of layer.weights) {
    expect(w).toHaveLength(QUERIES.length * KEYS.length);
    expect(w[5]).toBe(0); // query "the" at position 4 cannot see "mat" at 5
    expect(w[6 + 5]).toBeGreaterThan(0); // "mat" sees itself
  }
  expect(layer.kvHeads).toEqual([0, 0, 1, 1]);
});

test('the head view labels its rows with the queries and its columns with the keys, and reads the cell under focus', async () => {
  const out = await inPage(async ({ createHeadView }, data) => {
    const root = document.body.appendChild(document.createElement('div'));
    root.style.width = '640px';
    const view = createHeadView(root);
    view.update({ ...data.common, weights: data.weights[1], title: 'head 2' });
    const matrix = root.querySelector('.mh-head-plot .mh-matrix'), canvas = matrix.querySelector('canvas');
    matrix.focus();
    for (let i = 0; i < 6; i++) matrix.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    matrix.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    await new Promise(requestAnimationFrame);
    const text = root.querySelector('.mh-visually-hidden').textContent;
    const out = {
      queries: [...root.querySelectorAll('.mh-head-queries button')].map((b) => b.textContent),
      keys: [...root.querySelectorAll('.mh-head-keys span')].map((s) => s.textContent),
      label: matrix.getAttribute('aria-label'), text, ratio: canvas.clientWidth / canvas.clientHeight,
    };
    view.destroy?.();
    root.remove();
    return out;
  }, { common: common(), weights: layer.weights });
  expect(out.queries).toEqual(QUERIES);
  expect(out.keys).toEqual(KEYS);
  expect(out.label).toMatch(/^head 2: 2 × 6 weights/);
  // Focus starts at the first cell, moves right to the last key (clamped at 6), then down to "mat".
  expect(out.text).toBe(`mat → mat: ${layer.weights[1][11].toFixed(3)}`);
  expect(out.ratio).toBeCloseTo(3, 1); // six columns by two rows of square cells
});

test('the lines view joins 2 queries to 6 keys, and a query lights only its own lines', async () => {
  const out = await inPage(async ({ createLinesView }, data) => {
    const root = document.body.appendChild(document.createElement('div'));
    root.style.width = '640px';
    const view = createLinesView(root);
    view.update({ ...data.common, weights: data.weights, heads: [0, 3] });
    const queries = [...root.querySelectorAll('.mh-lines-query')];
    queries[0].dispatchEvent(new PointerEvent('pointerover', { bubbles: true }));
    await new Promise(requestAnimationFrame);
    await new Promise(requestAnimationFrame);
    const canvas = root.querySelector('canvas');
    const out = {
      queries: queries.map((q) => q.textContent), keys: [...root.querySelectorAll('.mh-lines-key')].map((k) => k.textContent),
      strong: Number(canvas.dataset.lines), height: canvas.clientHeight,
    };
    view.destroy();
    root.remove();
    return out;
  }, { common: common(), weights: layer.weights });
  expect(out.queries).toEqual(QUERIES);
  expect(out.keys).toEqual(KEYS);
  // Lines at full strength from query 0 ("the" at position 4): its visible keys above 0.01 in heads 1 and 4.
  const expected = [0, 3].reduce((sum, h) => sum + [...layer.weights[h].subarray(0, 6)].filter((w) => w > 0.01).length, 0);
  expect(out.strong).toBe(expected);
  expect(out.height).toBe(6 * 22); // as tall as the longer column
});

test('the four steps draw K and V with a row per key, the weights 2 × 6, and the concatenation h·dh wide', async () => {
  const out = await inPage(async ({ createStepsView }, data) => {
    const root = document.body.appendChild(document.createElement('div'));
    root.style.width = '860px';
    const view = createStepsView(root);
    view.update({ ...data.layer, ...data.common, title: 'Grouped layer' });
    const shapes = (kind) => [...root.querySelectorAll(`.mh-fig-${kind}`)].map((f) =>
      `${f.querySelector('figcaption').firstChild.textContent.trim()} ${f.querySelector('.mh-shape').textContent}`);
    const out = {
      q: shapes('q'), k: shapes('k'), weights: shapes('weights'), concat: shapes('concat'), output: shapes('output'),
      text: root.querySelector('.mh-step-2 .mh-step-text').textContent,
      keyLabels: [...root.querySelectorAll('.mh-fig-k .mh-rowlabels span')].map((s) => s.textContent).slice(0, 6),
    };
    const output = root.querySelector('.mh-fig-output .mh-matrix');
    output.focus();
    output.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home', bubbles: true }));
    out.trace = root.querySelector('.mh-trace').textContent;
    return out;
  }, { layer, common: common() });
  expect(out.q).toEqual(['Q₁ queries 2 × 4', 'Q₂ queries 2 × 4', 'Q₃ queries 2 × 4', 'Q₄ queries 2 × 4']);
  // Query heads 1 and 2 share key/value head 1; 3 and 4 share head 2.
  expect(out.k).toEqual(['K₁ keys, shared by heads 1–2 6 × 4', 'K₁ keys, shared by heads 1–2 6 × 4', 'K₂ keys, shared by heads 3–4 6 × 4',
    'K₂ keys, shared by heads 3–4 6 × 4']);
  expect(out.weights).toEqual(Array(4).fill(0).map((_, h) => `A${'₁₂₃₄'[h]} weights 2 × 6`));
  expect(out.concat).toEqual([`concat (heads 1–4 side by side) 2 × ${HEADS * HEAD_DIM}`]);
  expect(out.output).toEqual([`output (concat · Wₒ + bₒ) 2 × ${D}`]);
  expect(out.text).toContain('K and V have only 2 heads, each shared by 2 query heads');
  expect(out.keyLabels).toEqual(KEYS);
  expect(out.trace).toMatch(/^Output row for “the”/);
  await screenshot(page, 'views-non-square-steps');
});

test('the grid reads a 2 × 6 cell, and the exports draw and write 2 × 6 matrices with both token lists', async () => {
  const out = await inPage(async (m, data) => {
    const root = document.body.appendChild(document.createElement('div'));
    root.style.width = '640px';
    const grid = m.createGridView(root);
    grid.update({ ...data.common, weights: data.weights, title: 'grid' });
    // The grid is below the fold, so its heatmaps are painted from the next frame on: until aria-busy goes.
    await new Promise((resolve) => { const wait = () => (root.hasAttribute('aria-busy') ? requestAnimationFrame(wait) : resolve()); wait(); });
    const thumb = root.querySelector('.mh-grid-card .mh-matrix');
    const box = thumb.querySelector('.mh-matrix-overlay').getBoundingClientRect();
    thumb.dispatchEvent(new PointerEvent('pointermove', { bubbles: true, clientX: box.right - 0.5, clientY: box.bottom - 0.5 }));
    const readout = root.querySelector('.mh-grid-readout').textContent;
    const args = { tokens: data.common.tokens, keyTokens: data.common.keyTokens, weights: data.weights, heads: [0, 2], title: 'two of six' };
    const svg = new DOMParser().parseFromString(m.heatmapSvg(args), 'image/svg+xml');
    const png = await createImageBitmap(await m.heatmapPng(args));
    const layout = m.figureLayout({ n: 2, nKeys: 6, heads: [0, 2] });
    const json = JSON.parse(m.attentionJson({ tokens: data.common.tokens, keyTokens: data.common.keyTokens, layers: [{ weights: data.weights }] }));
    const model = { tokens: data.common.tokens, keyTokens: data.common.keyTokens, layers: [{ weights: data.weights }] };
    const modelSvg = new DOMParser().parseFromString(await m.modelSvg(model), 'image/svg+xml');
    const modelLayout = m.modelLayout({ n: 2, nKeys: 6, layers: 1, heads: 4 });
    const modelPng = await createImageBitmap(await m.modelPng(model));
    const errors = [];
    for (const bad of [() => m.heatmapSvg({ ...args, keyTokens: undefined }), () => m.modelSvg({ ...model, keyTokens: ['x'] })]) {
      try { await bad(); errors.push('no error'); } catch (e) { errors.push(e.message); }
    }
    return {
      readout,
      svgCells: svg.querySelectorAll('g[shape-rendering] rect').length,
      svgTexts: [...svg.querySelectorAll('text')].map((t) => t.textContent),
      png: [png.width, png.height], layout: [layout.width, layout.height, layout.matrixWidth, layout.matrixHeight],
      json: { tokens: json.tokens, keyTokens: json.keyTokens, rows: json.layers[0].heads[0].length, cols: json.layers[0].heads[0][0].length, first: json.layers[0].heads[1][1] },
      modelImages: [...modelSvg.querySelectorAll('image')].map((i) => [i.getAttribute('width'), i.getAttribute('height')]),
      modelPng: [modelPng.width, modelPng.height], modelLayout: [modelLayout.width, modelLayout.height, modelLayout.thumbWidth, modelLayout.thumbHeight],
      errors,
    };
  }, { common: common(), weights: layer.weights });
  expect(out.readout).toBe(`head 1: mat → mat: ${layer.weights[0][11].toFixed(3)}`);
  expect(out.svgCells).toBe(2 * 12);
  expect(out.svgTexts).toEqual(['two of six', 'head 1', 'the', 'The', 'mat', 'cat', 'sat', 'on', 'the', 'mat',
    'head 3', 'the', 'The', 'mat', 'cat', 'sat', 'on', 'the', 'mat']);
  expect(out.png).toEqual(out.layout.slice(0, 2));
  expect(out.layout.slice(2)).toEqual([6 * 24, 2 * 24]);
  expect(out.json).toEqual({ tokens: QUERIES, keyTokens: KEYS, rows: 2, cols: 6, first: Array.from(layer.weights[1].subarray(6, 12)) });
  expect(out.modelImages).toEqual(Array(4).fill([`${6 * 8}`, `${2 * 8}`]));
  expect(out.modelPng).toEqual(out.modelLayout.slice(0, 2));
  expect(out.errors).toEqual([
    "head 0's weights hold 12 values; 2 tokens need 2 × 2 = 4",
    'layer 1 head 1 has 12 weights; 2 queries and 1 keys need 2',
  ]);
  expect(problems).toEqual([]);
});
