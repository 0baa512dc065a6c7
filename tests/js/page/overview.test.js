// The model view's thumbnails at scale (views/view-data.js): overviewOf pools each head into blocks
// of tokens (the mean over each block's cells, the last block short), names the blocks, and leaves
// a text of at most OVERVIEW_SIZE tokens as it is; viewData's model view draws it with each
// layer's sliding window in blocks, hatching only the blocks wholly outside it.
import { OVERVIEW_SIZE, overviewOf, viewData } from '../../../web/src/views/view-data.js';

/** A run of n tokens whose head h of layer l has weight (l + 1) · (h + 1) · (i · n + j) at (i, j). */
function run(n, { numLayers = 2, numHeads = 3 } = {}) {
  return {
    tokens: Array.from({ length: n }, (_, i) => `t${i}`),
    numLayers, numHeads,
    attention: (l, h) => Float32Array.from({ length: n * n }, (_, k) => (l + 1) * (h + 1) * k),
  };
}

test('a short text keeps its weights and tokens', () => {
  const r = run(OVERVIEW_SIZE);
  const { block, labels, layers } = overviewOf(r);
  expect([block, labels]).toEqual([1, r.tokens]);
  expect(layers[1].weights[2]).toEqual(r.attention(1, 2));
});

test('a longer one is pooled into blocks of tokens, each cell the mean of its block, the last block short', () => {
  const n = 5;
  const { block, labels, layers } = overviewOf(run(n), 2); // blocks of 3: tokens 1–3 and 4–5
  expect([block, labels]).toEqual([3, ['tokens 1–3', 'tokens 4–5']]);
  const a = run(n).attention(1, 2);
  const mean = (rows, cols) => rows.flatMap((i) => cols.map((j) => a[i * n + j])).reduce((s, v) => s + v, 0) / (rows.length * cols.length);
  const want = [mean([0, 1, 2], [0, 1, 2]), mean([0, 1, 2], [3, 4]), mean([3, 4], [0, 1, 2]), mean([3, 4], [3, 4])];
  Array.from(layers[1].weights[2]).forEach((v, k) => expect(v).toBeCloseTo(want[k], 3));
  expect(layers).toHaveLength(2);
  expect(layers[0].weights).toHaveLength(3);
});

test('the model view of a pooled run names its blocks and hatches only the blocks wholly outside a window', () => {
  const r = { ...run(1024, { numLayers: 2, numHeads: 1 }), causal: true, windows: [512, null], unknown: [] };
  const data = viewData('grid', { ...r, overview: overviewOf(r) }, 'all');
  expect(data.tokens).toHaveLength(128);
  expect(data.tokens[0]).toBe('tokens 1–8');
  expect(data.title).toBe('Every layer, each thumbnail in blocks of 8 tokens (their mean weight)');
  expect(data.rows.map((row) => [row.title, row.window])).toEqual([['Layer 1 · window 512', 65], ['Layer 2 · full', null]]);
  // Query block I starts at token 8I; key block J ends at 8J + 7. Every query of the block sees none of J's keys when
  // 8J + 7 ≤ 8I − 512, that is J ≤ I − 65: exactly the blocks the hatch covers (c ≤ r − window).
  for (const I of [65, 100, 127]) {
    const J = I - 65;
    expect(8 * J + 7 <= 8 * I - 512).toBe(true);
    expect(8 * (J + 1) + 7 <= 8 * I - 512).toBe(false);
  }
});
