// The layer through the JavaScript API, on both builds: the float64 reference, the properties
// that define attention, and the shapes and copies the trace hands out.
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, maxAbsDiff, randomValues, randomWeights, referenceAttention } from '../helpers.js';

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(options); });
  afterAll(() => engine.dispose());

  test('reports the build it loaded', () => {
    expect(engine.build).toBe(build);
    expect(engine.simd).toBe(build !== 'scalar');
  });

  test.each([
    [5, 12, 3, false], [5, 12, 3, true], [33, 64, 4, false], [50, 96, 12, true], [130, 32, 2, false],
  ])('matches the float64 reference at n=%i, d=%i, h=%i, causal=%s to 1e-5', (n, d, h, causal) => {
    const w = randomWeights(d, n);
    const x = randomValues(n * d, 99);
    const keyMask = Uint8Array.from({ length: n }, (_, j) => (j % 5 === 3 ? 0 : 1));
    const layer = engine.createAttention({ dModel: d, numHeads: h, causal, weights: w });
    const trace = layer.forward(x, n, { keyMask });
    const ref = referenceAttention(x, n, d, h, causal, w, keyMask);
    for (let head = 0; head < h; head++) expect(maxAbsDiff(trace.weights(head), ref.weights[head])).toBeLessThan(1e-5);
    expect(maxAbsDiff(trace.output(), ref.output)).toBeLessThan(1e-5);
    layer.dispose();
  });

  test.each([
    // n, d, h, kv, dh, causal
    [7, 12, 4, 2, 3, false], [7, 12, 4, 1, 3, true], [9, 16, 4, 2, 8, true], [40, 24, 6, 3, 5, false], [33, 20, 3, 3, 9, true],
  ])('n=%i, d=%i with %i query heads on %i key/value heads of width %i (causal %s) matches the float64 reference', (n, d, h, kv, dh, causal) => {
    const w = randomWeights(d, n, { h, kv, dh });
    const x = randomValues(n * d, 98);
    const keyMask = Uint8Array.from({ length: n }, (_, j) => (j % 5 === 3 ? 0 : 1));
    const layer = engine.createAttention({ dModel: d, numHeads: h, numKeyValueHeads: kv, headDim: dh, causal, weights: w });
    expect([layer.numKeyValueHeads, layer.headDim]).toEqual([kv, dh]);
    const trace = layer.forward(x, n, { keyMask });
    const ref = referenceAttention(x, n, d, h, causal, w, keyMask, { kv, dh });
    for (let head = 0; head < h; head++) {
      expect(maxAbsDiff(trace.weights(head), ref.weights[head])).toBeLessThan(1e-5);
      expect(trace.kvHead(head)).toBe(Math.floor(head / (h / kv)));
      expect(trace.queries(head)).toHaveLength(n * dh);
      expect(trace.keys(head)).toEqual(trace.keys(trace.kvHead(head) * (h / kv))); // a key/value head's first query head reads the same keys
    }
    expect([trace.nQueries, trace.nKeys, trace.numKeyValueHeads, trace.headDim]).toEqual([n, n, kv, dh]);
    expect(trace.concat()).toHaveLength(n * h * dh);
    expect(maxAbsDiff(trace.output(), ref.output)).toBeLessThan(1e-5);
    layer.dispose();
  });

  test.each([
    // nQueries, nKeys, queryPosition, d, h, kv, dh, causal
    [1, 9, 8, 12, 4, 2, 3, true], // a step of generation: the last token against every cached key
    [3, 10, 7, 16, 4, 1, 8, true], // three new tokens, one key/value head
    [4, 6, 0, 12, 6, 3, 2, true], // queries from other rows at positions 0…3: cross-attention, masked
    [5, 17, 2, 20, 2, 2, 7, false], // cross-attention without a mask: the offset changes nothing
    [40, 33, 30, 24, 6, 2, 5, true], // more queries than keys; the last rows see every key
  ])('%i queries against %i keys, the first at position %i (d=%i, %i heads on %i of width %i, causal %s) match the float64 reference',
    (nQ, nK, position, d, h, kv, dh, causal) => {
      const w = randomWeights(d, 7 * nK + nQ, { h, kv, dh });
      const xq = randomValues(nQ * d, 81), xkv = randomValues(nK * d, 82);
      const keyMask = Uint8Array.from({ length: nK }, (_, j) => (j % 4 === 2 ? 0 : 1));
      const layer = engine.createAttention({ dModel: d, numHeads: h, numKeyValueHeads: kv, headDim: dh, causal, weights: w });
      const options = { keyValueInput: xkv, nKeys: nK, queryPosition: position, keyMask };
      const ref = referenceAttention(xq, nQ, d, h, causal, w, keyMask, { kv, dh, xKv: xkv, nKeys: nK, queryPosition: position });
      for (const trace of [layer.forward(xq, nQ, options), layer.forwardView(xq, nQ, options)]) {
        expect([trace.nQueries, trace.nKeys]).toEqual([nQ, nK]);
        for (let head = 0; head < h; head++) {
          const weights = trace.weights(head);
          expect([weights.nQueries, weights.nKeys]).toEqual([nQ, nK]);
          expect(maxAbsDiff(weights, ref.weights[head])).toBeLessThan(1e-5);
          expect(trace.keys(head)).toHaveLength(nK * dh);
          expect(trace.headOutput(head)).toHaveLength(nQ * dh);
        }
        expect(maxAbsDiff(trace.output(), ref.output)).toBeLessThan(1e-5);
      }
      expect(maxAbsDiff(layer.output(xq, nQ, options), ref.output)).toBeLessThan(1e-5);
      layer.dispose();
    });

  test('a generation step masked by position sees what the same token sees in the whole text', () => {
    const d = 16, n = 9;
    const layer = engine.createAttention({ dModel: d, numHeads: 4, numKeyValueHeads: 2, causal: true, seed: 5 });
    const x = randomValues(n * d, 12);
    const whole = layer.forward(x, n);
    const last = layer.forward(x.subarray((n - 1) * d), 1, { keyValueInput: x, nKeys: n, queryPosition: n - 1 });
    for (let head = 0; head < 4; head++) {
      expect(maxAbsDiff(last.weights(head), whole.weights(head).subarray((n - 1) * n))).toBeLessThan(1e-6);
    }
    expect(maxAbsDiff(last.output(), whole.output().subarray((n - 1) * d))).toBeLessThan(1e-6);
    layer.dispose();
  });

  test('seeded layers of grouped heads are deterministic, and without the new options a layer is as before', () => {
    const grouped = engine.createAttention({ dModel: 12, numHeads: 4, numKeyValueHeads: 2, headDim: 5, seed: 11 });
    const again = engine.createAttention({ dModel: 12, numHeads: 4, numKeyValueHeads: 2, headDim: 5, seed: 11 });
    const x = randomValues(6 * 12, 1);
    expect(grouped.forward(x, 6).output()).toEqual(again.forward(x, 6).output());
    const plain = engine.createAttention({ dModel: 12, numHeads: 4, seed: 11 });
    const spelled = engine.createAttention({ dModel: 12, numHeads: 4, numKeyValueHeads: 4, headDim: 3, seed: 11 });
    expect(plain.forward(x, 6).output()).toEqual(spelled.forward(x, 6).output());
    expect([plain.numKeyValueHeads, plain.headDim, plain.dHead]).toEqual([4, 3, 3]);
    for (const layer of [grouped, again, plain, spelled]) layer.dispose();
  });

  test("rows of every head's attention sum to 1", () => {
    const layer = engine.createAttention({ dModel: 48, numHeads: 6, seed: 3 });
    const n = 21;
    const trace = layer.forward(randomValues(n * 48, 5, 2), n);
    for (let h = 0; h < 6; h++) {
      const w = trace.weights(h);
      for (let i = 0; i < n; i++) {
        const sum = w.subarray(i * n, (i + 1) * n).reduce((a, b) => a + b, 0);
        expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
      }
    }
    layer.dispose();
  });

  test('causal attention is exactly zero above the diagonal', () => {
    const layer = engine.createAttention({ dModel: 16, numHeads: 2, causal: true, seed: 4 });
    const n = 13;
    const trace = layer.forward(randomValues(n * 16, 6), n);
    for (let h = 0; h < 2; h++) {
      const w = trace.weights(h);
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) expect(w[i * n + j]).toBe(0);
    }
    layer.dispose();
  });

  test('permuting the tokens permutes the outputs when not causal', () => {
    const d = 20, n = 9;
    const layer = engine.createAttention({ dModel: d, numHeads: 4, seed: 8 });
    const x = randomValues(n * d, 7);
    const perm = [4, 0, 8, 2, 7, 1, 6, 3, 5];
    const xp = new Float32Array(n * d);
    perm.forEach((from, i) => xp.set(x.subarray(from * d, (from + 1) * d), i * d));
    const out = layer.output(x, n), outp = layer.output(xp, n);
    perm.forEach((from, i) => {
      expect(maxAbsDiff(outp.subarray(i * d, (i + 1) * d), out.subarray(from * d, (from + 1) * d))).toBeLessThan(1e-5);
    });
    layer.dispose();
  });

  test('a query that can see no key gets zero weights, not NaN', () => {
    const layer = engine.createAttention({ dModel: 8, numHeads: 2, causal: true, seed: 9 });
    const trace = layer.forward(randomValues(4 * 8, 1), 4, { keyMask: [0, 1, 1, 1] });
    expect(Array.from(trace.weights(0).subarray(0, 4))).toEqual([0, 0, 0, 0]);
    expect(Array.from(trace.headOutput(1).subarray(0, 4))).toEqual([0, 0, 0, 0]);
    expect(trace.output().every(Number.isFinite)).toBe(true);
    layer.dispose();
  });

  test('the trace gives every intermediate with its shape, and they fit together', () => {
    const d = 12, h = 3, n = 6, dh = 4;
    const layer = engine.createAttention({ dModel: d, numHeads: h, seed: 10 });
    const trace = layer.forward(randomValues(n * d, 2), n);
    expect([trace.nTokens, trace.dModel, trace.numHeads, trace.dHead]).toEqual([n, d, h, dh]);
    for (let head = 0; head < h; head++) {
      for (const part of ['queries', 'keys', 'values', 'headOutput']) expect(trace[part](head)).toHaveLength(n * dh);
      expect(trace.weights(head)).toHaveLength(n * n);
      // headOutput = weights · values, and scores = Q·Kᵀ/√dh
      const [a, v, q, k] = [trace.weights(head), trace.values(head), trace.queries(head), trace.keys(head)];
      const o = trace.headOutput(head);
      let dot = 0, sum = 0;
      for (let p = 0; p < dh; p++) dot += q[2 * dh + p] * k[5 * dh + p];
      for (let j = 0; j < n; j++) sum += a[3 * n + j] * v[j * dh + 1];
      expect(trace.scores(head)[2 * n + 5]).toBeCloseTo(dot / Math.sqrt(dh), 5);
      expect(o[3 * dh + 1]).toBeCloseTo(sum, 5);
      // headOutput(head) is its columns of concat()
      expect(trace.concat()[4 * d + head * dh + 2]).toBe(o[4 * dh + 2]);
    }
    expect(trace.concat()).toHaveLength(n * d);
    expect(trace.output()).toHaveLength(n * d);
    layer.dispose();
  });

  test('results are copies: changing one changes neither the trace nor later calls', () => {
    const layer = engine.createAttention({ dModel: 8, numHeads: 2, seed: 11 });
    const x = randomValues(3 * 8, 3);
    const trace = layer.forward(x, 3);
    const first = trace.weights(1);
    first.fill(7);
    expect(trace.weights(1)).not.toContain(7);
    expect(layer.forward(x, 3).output()).toEqual(trace.output());
    layer.dispose();
  });

  test('forwardView gives the numbers forward gives, as views the next call overwrites', () => {
    const layer = engine.createAttention({ dModel: 16, numHeads: 4, causal: true, seed: 13 });
    const x = randomValues(9 * 16, 6), y = randomValues(9 * 16, 7);
    const copied = layer.forward(x, 9);
    const view = layer.forwardView(x, 9);
    expect(view.view).toBe(true);
    expect(copied.view).toBe(false);
    for (let h = 0; h < 4; h++) {
      expect(view.weights(h)).toEqual(copied.weights(h));
      expect(view.scores(h)).toEqual(copied.scores(h));
      expect(view.queries(h)).toEqual(copied.queries(h));
      expect(view.headOutput(h)).toEqual(copied.headOutput(h));
    }
    expect(view.output()).toEqual(copied.output());
    // A view, not a copy: the same memory twice, rewritten by the layer's next pass.
    const weights = view.weights(2);
    expect(view.weights(2).buffer).toBe(weights.buffer);
    const before = weights.slice();
    layer.forwardView(y, 9);
    expect(weights).not.toEqual(before);
    expect(weights).toEqual(layer.forward(y, 9).weights(2));
    // forward() copies stay as they were.
    expect(copied.weights(2)).toEqual(before);
    layer.dispose();
  });

  test('forwardView reuses its memory, and forward frees what it used', () => {
    const layer = engine.createAttention({ dModel: 32, numHeads: 4, seed: 14 });
    const x = randomValues(40 * 32, 8);
    const empty = engine.memory().usedBytes;
    layer.forward(x, 40);
    expect(engine.memory().usedBytes).toBe(empty);
    layer.forwardView(x, 40);
    const kept = engine.memory().usedBytes;
    expect(kept).toBeGreaterThan(empty + 4 * (2 * 4 * 40 * 40));  // the trace's scores and weights, at least
    for (let i = 0; i < 50; i++) layer.forwardView(x, 40);
    expect(engine.memory().usedBytes).toBe(kept);
    layer.dispose();
    expect(engine.memory().usedBytes).toBeLessThan(empty);  // the layer's own weights are freed too
  });

  test('the same seed gives the same layer in both builds and every run', () => {
    const x = randomValues(5 * 12, 4);
    const a = engine.createAttention({ dModel: 12, numHeads: 3, seed: 42 });
    const b = engine.createAttention({ dModel: 12, numHeads: 3, seed: 42 });
    const c = engine.createAttention({ dModel: 12, numHeads: 3, seed: 43 });
    expect(a.output(x, 5)).toEqual(b.output(x, 5));
    expect(a.output(x, 5)).not.toEqual(c.output(x, 5));
    [a, b, c].forEach((l) => l.dispose());
  });

  test('accepts plain arrays as well as Float32Arrays', () => {
    const layer = engine.createAttention({ dModel: 4, numHeads: 1, seed: 12 });
    const x = randomValues(8, 5);
    expect(layer.output(Array.from(x), 2)).toEqual(layer.output(x, 2));
    layer.dispose();
  });
});

test('the SIMD and scalar builds agree to 1e-6', async () => {
  const [simd, scalar] = await Promise.all([loadEngine({ simd: true }), loadEngine({ simd: false })]);
  const x = randomValues(40 * 64, 13);
  const outputs = [simd, scalar].map((e) => e.createAttention({ dModel: 64, numHeads: 8, causal: true, seed: 5 }).forward(x, 40));
  for (let h = 0; h < 8; h++) expect(maxAbsDiff(outputs[0].weights(h), outputs[1].weights(h))).toBeLessThan(1e-6);
  expect(maxAbsDiff(outputs[0].output(), outputs[1].output())).toBeLessThan(1e-6);
  simd.dispose();
  scalar.dispose();
});
