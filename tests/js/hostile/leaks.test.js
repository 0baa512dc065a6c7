// Defect 2 of issue 11: an argument that throws, or lies about its size, while the engine copies it
// used to throw past C++ and leak what C++ had allocated (104 bytes to 1 KB per call, until the
// heap was full). Now every argument is checked and copied before WASM sees it, so a failing call
// leaves the heap in use exactly as it was: the soaks below make 1,000 of them and compare. The
// detached and resizable-buffer tests pin the size that is read (built-in getters, not `length`);
// the old code already refused those two before WASM, with other wording.
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, maxAbsDiff, randomValues, randomWeights } from '../helpers.js';
import { tinyModelFiles } from '../tiny-model.js';
import { arrayWithGetter, failures, rejections, used } from './hostile.js';

const CALLS = 1000;

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine, layer;
  beforeAll(async () => {
    engine = await loadEngine(options);
    layer = engine.createAttention({ dModel: 8, numHeads: 2, seed: 42 });
  });
  afterAll(() => engine.dispose());
  const x = randomValues(24, 3);

  test('x with a getter that throws: 1,000 calls of each kind leak nothing', () => {
    const expected = layer.output(x, 3);
    layer.forwardView(x, 3); // the layer keeps its view buffers from the first call on
    const before = used(engine);
    const first = Array.from(x);
    Object.defineProperty(first, 9, { get: () => { throw new Error('getter says no'); } });
    for (const call of ['forward', 'forwardView', 'output']) {
      expect(failures(() => layer[call](first, 3), CALLS)).toEqual(['getter says no']);
      // A getter that throws only on a second read of its array, as a copy into WASM would make it.
      for (let i = 0; i < CALLS; i++) layer[call](arrayWithGetter(x, 9, () => { throw new Error('getter says no'); }).array, 3);
    }
    expect(used(engine)).toBe(before);
    expect(maxAbsDiff(layer.output(x, 3), expected)).toBe(0);
  });

  test('weights whose getter throws: 1,000 createAttention calls leak nothing', () => {
    const weights = randomWeights(8, 4);
    engine.createAttention({ dModel: 8, numHeads: 2, weights }).dispose();
    const before = used(engine);
    for (let i = 0; i < CALLS; i++) {
      const { array: wv } = arrayWithGetter(weights.wv, 63, () => { throw new Error('getter says no'); });
      engine.createAttention({ dModel: 8, numHeads: 2, weights: { ...weights, wv } }).dispose();
    }
    const throwing = { ...weights, get bk() { throw new Error('no bk for you'); } };
    expect(failures(() => engine.createAttention({ dModel: 8, numHeads: 2, weights: throwing }), CALLS)).toEqual(['no bk for you']);
    expect(used(engine)).toBe(before);
  });

  test('a typed array whose length property lies is measured by its real length', () => {
    const before = used(engine);
    const longer = new Float32Array(30).fill(0.5);
    Object.defineProperty(longer, 'length', { value: 24 });
    expect(failures(() => layer.output(longer, 3), CALLS)).toEqual(['x must have nTokens × dModel = 3 × 8 = 24 values, got 30']);
    const weights = randomWeights(8, 4);
    const wq = new Float32Array(80);
    Object.defineProperty(wq, 'length', { get: () => 64 });
    expect(failures(() => engine.createAttention({ dModel: 8, numHeads: 2, weights: { ...weights, wq } }), CALLS))
      .toEqual(['weights.wq must have dModel × dModel = 8 × 8 = 64 values, got 80']);
    expect(used(engine)).toBe(before);
  });

  test('x on a detached buffer is refused by name', () => {
    const before = used(engine);
    const detached = new Float32Array(24);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    expect(failures(() => layer.output(detached, 3), CALLS))
      .toEqual(['x must have nTokens × dModel = 3 × 8 = 24 values, got 0 (its buffer is empty or detached)']);
    expect(used(engine)).toBe(before);
  });

  test('x on a resizable buffer that shrank is measured as it is now', () => {
    const buffer = new ArrayBuffer(24 * 4, { maxByteLength: 64 * 4 });
    const tracking = new Float32Array(buffer); // follows the buffer's size
    tracking.set(x);
    const expected = layer.output(x, 3);
    expect(maxAbsDiff(layer.output(tracking, 3), expected)).toBe(0);
    buffer.resize(16 * 4);
    expect(() => layer.output(tracking, 3)).toThrow('x must have nTokens × dModel = 3 × 8 = 24 values, got 16');
  });

  test.each([
    ['before the call', (weights, load) => { structuredClone(weights.buffer, { transfer: [weights.buffer] }); return load(); }],
    ['while the model loads', (weights, load) => {
      const loading = load(); // has read the bytes, now loads the tokenizer
      structuredClone(weights.buffer, { transfer: [weights.buffer] });
      return loading;
    }],
  ])('model bytes detached %s: 1,000 loads fail by name and leak nothing', async (when, detachAndLoad) => {
    const files = tinyModelFiles();
    (await engine.loadModel(files)).dispose();
    const before = used(engine);
    const messages = await rejections(() => {
      const weights = files.weights.slice();
      return detachAndLoad(weights, () => engine.loadModel({ ...files, weights }));
    }, CALLS);
    expect(messages).toEqual(['model.safetensors is empty: 0 bytes (was its buffer detached or transferred?)']);
    expect(used(engine)).toBe(before);
  });

  test('model bytes whose length property lies are read in full', async () => {
    const files = tinyModelFiles();
    const reference = await engine.loadModel(files);
    const expected = reference.run('the cat sat').hidden;
    reference.dispose();
    const before = used(engine);
    for (const lie of [8, files.weights.length * 4]) {
      const weights = files.weights.slice();
      Object.defineProperty(weights, 'length', { value: lie });
      const model = await engine.loadModel({ ...files, weights });
      expect(maxAbsDiff(model.run('the cat sat').hidden, expected)).toBe(0);
      model.dispose();
    }
    expect(used(engine)).toBe(before);
  });
});
