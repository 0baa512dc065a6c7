// Extreme numbers (issue 11, defect 6): finite inputs and weights whose intermediates pass
// float32's range throw an Error naming the step (and, in a model, the layer) in both builds,
// where they used to give weights summing to 0, or NaN, differently in each build. The engine
// keeps working and keeps its heap afterwards.
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS } from '../helpers.js';
import { safetensorsBytes, tinyConfig, tinyTensors, tinyTokenizer } from '../tiny-model.js';

// The example: createAttention({ dModel: 8, numHeads: 2, seed: 42 }) and 24 numbers.
const x = Float32Array.from({ length: 24 }, (_, i) => Math.sin(i));
const CAUSE = ' overflowed float32 (the input or the weights are too large)';

/** Every matrix 3e38 (finite in float32, its double is not), every bias 0. */
function hugeWeights() {
  const w = {};
  for (const name of ['wq', 'wk', 'wv', 'wo']) w[name] = new Float32Array(64).fill(3e38);
  for (const name of ['bq', 'bk', 'bv', 'bo']) w[name] = new Float32Array(8);
  return w;
}

const LAYER_CASES = [
  { name: 'x scaled by 1e20', input: () => x.map((v) => v * 1e20), layer: { seed: 42 }, message: `attention: the scores of head 0${CAUSE}` },
  { name: 'causal, x scaled by 1e20', input: () => x.map((v) => v * 1e20), layer: { seed: 42, causal: true }, message: `attention: the scores of head 0${CAUSE}` },
  { name: 'weights of 3e38', input: () => x, layer: { weights: hugeWeights() }, message: `attention: the queries of head 0${CAUSE}` },
];

/** The tiny model's files with `change` applied to its tensors. */
function modelFiles(change) {
  const tensors = tinyTensors();
  change(tensors);
  return { config: tinyConfig(), tokenizer: tinyTokenizer(), weights: safetensorsBytes(tensors) };
}

const MODEL_CASES = [
  {
    name: 'word embeddings of 1e20',
    change: (t) => { t['embeddings.word_embeddings.weight'].values = t['embeddings.word_embeddings.weight'].values.map((v) => v * 1e20); },
    message: /^embeddings: the variance in embeddings\.LayerNorm overflowed float32 \(its input reaches \S+; with hidden_size = 8 it is sure to fit only below 2\.3e\+18\)$/,
  },
  {
    name: 'word and position embeddings of 3e38',
    change: (t) => { for (const n of ['word', 'position']) t[`embeddings.${n}_embeddings.weight`].values.fill(3e38); },
    message: /^embeddings: the sum of the word, position and token type embeddings overflowed float32 \(the embeddings are too large\)$/,
  },
  {
    // Layer 0's last LayerNorm made all ones (weight 0, bias 1), so layer 1's queries are 8 × 3e38.
    name: "a query weight of 3e38 in layer 1",
    change: (t) => {
      t['encoder.layer.0.output.LayerNorm.weight'].values.fill(0);
      t['encoder.layer.0.output.LayerNorm.bias'].values.fill(1);
      t['encoder.layer.1.attention.self.query.weight'].values.fill(3e38);
    },
    message: /^layer 1: attention: the queries of head 0 overflowed float32 \(the input or the weights are too large\)$/,
  },
];

const SENTENCE = 'The cat sat on the mat.';

/** The message `call` throws (as an Error), or a note that it threw none. */
function thrown(call) {
  try {
    call();
  } catch (error) {
    return error instanceof Error ? error.message : `not an Error: ${error}`;
  }
  return '(nothing thrown)';
}

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(options); });
  afterAll(() => engine.dispose());

  test.each(LAYER_CASES)('$name: forward, forwardView and output throw "$message"', ({ input, layer, message }) => {
    const L = engine.createAttention({ dModel: 8, numHeads: 2, ...layer });
    expect(() => L.forward(input(), 3)).toThrow(Error);
    expect(thrown(() => L.forward(input(), 3))).toBe(message);
    expect(thrown(() => L.forwardView(input(), 3))).toBe(message);
    expect(thrown(() => L.output(input(), 3))).toBe(message);
    L.dispose();
  });

  test.each(MODEL_CASES)('a model with $name: run() throws an error naming the layer and the step', async ({ change, message }) => {
    const model = await engine.loadModel(modelFiles(change));
    expect(() => model.run(SENTENCE)).toThrow(Error);
    expect(thrown(() => model.run(SENTENCE))).toMatch(message);
    model.dispose();
  });

  test('the layer and the engine work normally after an overflow', async () => {
    const L = engine.createAttention({ dModel: 8, numHeads: 2, seed: 42 });
    const before = L.forward(x, 3);
    expect(() => L.forwardView(x.map((v) => v * 1e20), 3)).toThrow('overflowed float32');
    const after = L.forwardView(x, 3);
    expect(after.output()).toEqual(before.output());
    for (let h = 0; h < 2; h++) {
      expect(after.weights(h)).toEqual(before.weights(h));
      for (let i = 0; i < 3; i++) expect(after.weights(h).subarray(i * 3, i * 3 + 3).reduce((a, b) => a + b)).toBeCloseTo(1, 6);
    }
    const model = await engine.loadModel(modelFiles(() => {}));
    const bad = await engine.loadModel(modelFiles(MODEL_CASES[0].change));
    const expected = model.run(SENTENCE).hidden;
    expect(() => bad.run(SENTENCE)).toThrow('overflowed float32');
    expect(model.run(SENTENCE).hidden).toEqual(expected);
    L.dispose();
    model.dispose();
    bad.dispose();
  });

  test('large values that fit in float32 still give rows summing to 1', () => {
    // Scores near ±1e17: only the row maximum subtracted before exp keeps these finite.
    const L = engine.createAttention({ dModel: 8, numHeads: 2, seed: 42 });
    const t = L.forward(x.map((v) => v * 1e8), 3);
    for (let h = 0; h < 2; h++) {
      for (let i = 0; i < 3; i++) expect(t.weights(h).subarray(i * 3, i * 3 + 3).reduce((a, b) => a + b)).toBeCloseTo(1, 6);
    }
    expect(t.output().every(Number.isFinite)).toBe(true);
    L.dispose();
  });

  test('1,000 calls of each kind that overflow leave the heap in use unchanged', async () => {
    const L = engine.createAttention({ dModel: 8, numHeads: 2, seed: 42 });
    const huge = engine.createAttention({ dModel: 8, numHeads: 2, weights: hugeWeights() });
    const model = await engine.loadModel(modelFiles(MODEL_CASES[2].change));
    const scaled = x.map((v) => v * 1e20);
    const fail = () => {
      for (const call of [() => L.forward(scaled, 3), () => L.forwardView(scaled, 3), () => L.output(scaled, 3),
        () => huge.forwardView(x, 3), () => model.run(SENTENCE)]) {
        if (!thrown(call).includes('overflowed float32')) throw new Error('a call did not overflow');
      }
    };
    fail(); // the first forwardView sizes the trace buffers each layer keeps
    const before = engine.memory().usedBytes;
    for (let i = 0; i < 1000; i++) fail();
    expect(engine.memory().usedBytes).toBe(before);
    L.dispose();
    huge.dispose();
    model.dispose();
  });
});

test('both builds give the same error for each example', async () => {
  const engines = await Promise.all(BUILDS.map(([, options]) => loadEngine(options)));
  for (const { input, layer } of LAYER_CASES) {
    const [simd, scalar] = engines.map((e) => thrown(() => e.createAttention({ dModel: 8, numHeads: 2, ...layer }).output(input(), 3)));
    expect(simd).toContain('overflowed float32');
    expect(scalar).toBe(simd);
  }
  for (const { change } of MODEL_CASES) {
    const models = await Promise.all(engines.map((e) => e.loadModel(modelFiles(change))));
    const [simd, scalar] = models.map((m) => thrown(() => m.run(SENTENCE)));
    expect(simd).toContain('overflowed float32');
    expect(scalar).toBe(simd);
  }
  engines.forEach((e) => e.dispose());
});
