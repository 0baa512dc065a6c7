// run({ onLayer }): each layer as it is computed, before the next one starts (the page draws the
// first layers while the others run). Its weights are the result's, bit for bit, whether the
// result keeps that layer or recomputes it; what onLayer throws stops the run and comes out of
// run(), and the model runs on as before.
import { loadEngine } from '../../../web/src/index.js';
import { maxAbsDiff } from '../helpers.js';
import { TINY, safetensorsBytes, tinyConfig, tinyTensors, tinyTokenizer } from '../tiny-model.js';

const SIZES = { d: 32, heads: 4, layers: 5, ff: 64, positions: 128 };
const TEXT = Array.from({ length: 150 }, (_, i) => TINY.vocab[5 + (i % 7)]).join(' ');

let engine, model;
beforeAll(async () => {
  engine = await loadEngine();
  const { d, heads, layers, ff, positions } = SIZES;
  const config = tinyConfig({ hidden_size: d, num_attention_heads: heads, num_hidden_layers: layers, intermediate_size: ff, max_position_embeddings: positions });
  model = await engine.loadModel({ config, tokenizer: tinyTokenizer(), weights: safetensorsBytes(tinyTensors(SIZES)) });
});
afterAll(() => engine.dispose());

test('onLayer sees every layer in order, with the tokens and weights of the result, kept or not', () => {
  for (const maxAttentionBytes of [undefined, 4 * SIZES.heads * 128 ** 2 * 2]) {
    const seen = [];
    const result = model.run(TEXT, {
      maxAttentionBytes,
      onLayer: (done) => seen.push({ ...done, weights: Array.from({ length: SIZES.heads }, (_, h) => done.attention(h)) }),
    });
    expect(result.truncated).toBe(true);
    expect(seen.map((s) => s.layer)).toEqual([0, 1, 2, 3, 4]);
    if (maxAttentionBytes) expect(result.keptLayers).toBe(2);
    for (const { layer, ids, tokens, unknown, truncated, totalTokens, weights } of seen) {
      expect({ ids, tokens, unknown, truncated, totalTokens }).toEqual({
        ids: result.ids, tokens: result.tokens, unknown: result.unknown, truncated: result.truncated, totalTokens: result.totalTokens,
      });
      for (let h = 0; h < SIZES.heads; h++) {
        expect(weights[h].nQueries).toBe(128);
        expect(maxAbsDiff(weights[h], result.attention(layer, h))).toBe(0);
      }
    }
    // Each layer's own weights: a view of C++'s buffer, read late, would hold the last layer's.
    expect(maxAbsDiff(seen[0].weights[1], seen[4].weights[1])).toBeGreaterThan(0);
  }
});

test('attention(head) is read during the call only, and checks the head', () => {
  let later = null;
  model.run(TEXT, {
    maxAttentionBytes: 0,
    onLayer: (done) => {
      expect(() => done.attention(SIZES.heads)).toThrow(/head/);
      later = done;
    },
  });
  expect(() => later.attention(0)).toThrow(/during the call only: layer 5/);
});

test('what onLayer throws stops the run and is thrown by run(); the model runs on, and nothing leaks', () => {
  const expected = model.run(TEXT);
  const before = engine.memory().usedBytes;
  const layers = [];
  const failure = new RangeError('enough');
  expect(() => model.run(TEXT, {
    onLayer: ({ layer }) => {
      layers.push(layer);
      if (layer === 1) throw failure;
    },
  })).toThrow(failure);
  expect(layers).toEqual([0, 1]);
  expect(() => model.run(TEXT, { onLayer: () => { throw undefined; } })).toThrow();
  expect(engine.memory().usedBytes).toBe(before);
  const again = model.run(TEXT);
  expect(maxAbsDiff(again.hidden, expected.hidden)).toBe(0);
});

test('onLayer must be a function', () => {
  expect(() => model.run(TEXT, { onLayer: 3 })).toThrow(new TypeError('onLayer must be a function, got number 3'));
});
