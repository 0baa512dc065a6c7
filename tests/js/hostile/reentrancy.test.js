// Defect 1 of issue 11: user code (getters, Proxies) that runs while the engine reads its arguments
// must not be able to dispose, grow or otherwise change WASM memory under a copy. Every argument is
// read once into a private snapshot before anything reaches WASM (web/src/check.js). The tests whose
// getter acts on a second read fail on the old code, which read every array twice; those whose
// getter acts at once guard the message the snapshot must still give.
import { loadEngine } from '../../../web/src/index.js';
import { HOSTILE_BUILDS, maxAbsDiff, randomValues, randomWeights } from '../helpers.js';
import { arrayWithGetter } from './hostile.js';

describe.each(HOSTILE_BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeEach(async () => { engine = await loadEngine(options); });
  afterEach(() => engine.dispose());

  const base = randomValues(24, 3);
  const layerOf = (e) => e.createAttention({ dModel: 8, numHeads: 2, seed: 42 });

  test('each element of x is read exactly once per call', () => {
    const L = layerOf(engine);
    for (const call of ['forward', 'forwardView', 'output']) {
      const { array, reads } = arrayWithGetter(base, 5, () => {});
      L[call](array, 3);
      expect([call, reads()]).toEqual([call, 1]);
    }
  });

  test.each(['forward', 'forwardView', 'output'])('a getter in x that would dispose the layer on a second read cannot reach the copy (%s)', (call) => {
    const L = layerOf(engine);
    const expected = layerOf(engine).output(base, 3);
    const { array } = arrayWithGetter(base, 5, () => L.dispose());
    const result = L[call](array, 3);
    const output = call === 'output' ? result : result.output();
    expect(maxAbsDiff(output, expected)).toBe(0);
    expect(L.disposed).toBe(false);
  });

  test.each(['forward', 'forwardView', 'output'])('a getter that disposes the layer while x is read gets a clear error (%s)', (call) => {
    const L = layerOf(engine);
    const array = Array.from(base);
    Object.defineProperty(array, 5, { get: () => { L.dispose(); return 0; } });
    expect(() => L[call](array, 3)).toThrow('This attention layer has been disposed');
    expect(layerOf(engine).output(base, 3).length).toBe(24); // the engine still works
  });

  test('a getter that disposes the whole engine while x is read gets a clear error', () => {
    const L = layerOf(engine);
    const array = Array.from(base);
    Object.defineProperty(array, 5, { get: () => { engine.dispose(); return 0; } });
    expect(() => L.forwardView(array, 3)).toThrow('This attention layer has been disposed');
  });

  test('a getter that grows WASM memory on a second read of x cannot change the output', () => {
    const L = layerOf(engine);
    const expected = L.output(base, 3);
    const heap = engine.memory().heapBytes;
    const { array } = arrayWithGetter(base, 5, () => engine.createAttention({ dModel: 2048, numHeads: 8, seed: 9 }));
    expect(maxAbsDiff(L.output(array, 3), expected)).toBe(0);
    // And a getter that grows memory on its first read, in the snapshot: the copy comes after.
    const growing = Array.from(base);
    Object.defineProperty(growing, 7, { get: () => { engine.createAttention({ dModel: 2048, numHeads: 8, seed: 10 }); return base[7]; } });
    expect(maxAbsDiff(L.output(growing, 3), expected)).toBe(0);
    expect(engine.memory().heapBytes).toBeGreaterThan(heap);
  });

  test('a getter in a weight array that grows WASM memory cannot change the layer built', () => {
    const weights = randomWeights(8, 5);
    const expected = engine.createAttention({ dModel: 8, numHeads: 2, weights }).output(base, 3);
    const { array } = arrayWithGetter(weights.wq, 50, () => engine.createAttention({ dModel: 2048, numHeads: 8, seed: 9 }));
    const L = engine.createAttention({ dModel: 8, numHeads: 2, weights: { ...weights, wq: array } });
    expect(maxAbsDiff(L.output(base, 3), expected)).toBe(0);
  });

  test('a weights object whose getter returns another array on a second read builds the layer from the first', () => {
    const weights = randomWeights(8, 5);
    const expected = engine.createAttention({ dModel: 8, numHeads: 2, weights }).output(base, 3);
    let reads = 0;
    const tricky = { ...weights, get wk() { return reads++ === 0 ? weights.wk : new Float32Array(3); } };
    const L = engine.createAttention({ dModel: 8, numHeads: 2, weights: tricky });
    expect(maxAbsDiff(L.output(base, 3), expected)).toBe(0);
    expect(reads).toBe(1);
  });

  test('a weight getter that disposes the engine gets a clear error instead of a layer nothing owns', () => {
    const weights = randomWeights(8, 5);
    const bo = Array.from(weights.bo);
    Object.defineProperty(bo, 3, { get: () => { engine.dispose(); return 0; } });
    expect(() => engine.createAttention({ dModel: 8, numHeads: 2, weights: { ...weights, bo } }))
      .toThrow('This engine has been disposed');
  });

  test('a Proxy for x is read once per element and its traps run before WASM', () => {
    const L = layerOf(engine);
    const expected = L.output(base, 3);
    const seen = [];
    const proxy = new Proxy(Array.from(base), {
      get(target, key) {
        seen.push(key);
        if (seen.length > 30) engine.createAttention({ dModel: 2048, numHeads: 8, seed: 9 });
        return target[key];
      },
    });
    expect(maxAbsDiff(L.output(proxy, 3), expected)).toBe(0);
    const indices = seen.filter((key) => typeof key === 'string' && /^\d+$/.test(key));
    expect(indices).toEqual(Array.from({ length: 24 }, (_, i) => String(i)));
  });

  test('a keyMask getter runs once, before the copy', () => {
    const L = layerOf(engine);
    const expected = L.output(base, 3, { keyMask: [1, 0, 1] });
    const { array: mask, reads } = arrayWithGetter([1, 0, 1], 1, () => engine.createAttention({ dModel: 2048, numHeads: 8, seed: 9 }));
    let optionReads = 0;
    const options = { get keyMask() { optionReads++; return mask; } };
    expect(maxAbsDiff(L.output(base, 3, options), expected)).toBe(0);
    expect([reads(), optionReads]).toEqual([1, 1]);
  });
});
