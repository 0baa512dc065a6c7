// Bad input gets a clear error naming what was wrong, and the engine keeps working afterwards.
import { loadEngine } from '../../../web/src/index.js';
import { instantiate } from '../../../web/src/engine/wasm-glue.js';
import { BUILDS, randomValues } from '../helpers.js';

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine, layer;
  beforeAll(async () => {
    engine = await loadEngine(options);
    layer = engine.createAttention({ dModel: 12, numHeads: 3, seed: 1 });
  });
  afterAll(() => engine.dispose());
  const x = randomValues(2 * 12, 1);

  test.each([
    { args: { dModel: 10, numHeads: 3, seed: 1 }, type: RangeError, message: 'dModel (10) must be divisible by numHeads (3)' },
    { args: { dModel: 12, numHeads: 0, seed: 1 }, type: RangeError, message: 'numHeads must be from 1 to 12, got 0' },
    { args: { dModel: 12.5, numHeads: 1, seed: 1 }, type: TypeError, message: 'dModel must be an integer, got number 12.5' },
    { args: { dModel: '12', numHeads: 1, seed: 1 }, type: TypeError, message: 'dModel must be an integer, got the string "12"' },
    { args: { dModel: 8192, numHeads: 1, seed: 1 }, type: RangeError, message: 'dModel must be from 1 to 4096, got 8192' },
    { args: { dModel: 12, numHeads: 3, causal: 'yes', seed: 1 }, type: TypeError, message: 'causal must be true or false' },
    { args: { dModel: 12, numHeads: 3 }, type: TypeError, message: 'exactly one of `weights` or `seed`, got neither' },
    { args: { dModel: 12, numHeads: 3, seed: -1 }, type: RangeError, message: 'seed must be from 0 to 4294967295, got -1' },
    { args: { dModel: 4, numHeads: 1, weights: {} }, type: TypeError, message: 'weights.wq is missing' },
    { args: { dModel: 4, numHeads: 1, weights: { wq: new Float32Array(15) } }, type: RangeError, message: 'weights.wq must have dModel × dModel = 4 × 4 = 16 values, got 15' },
    { args: { dModel: 4, numHeads: 1, weights: { wq: 'abc' } }, type: TypeError, message: 'weights.wq must be a Float32Array' },
    { args: { dModel: 12, numHeads: 6, numKeyValueHeads: 4, seed: 1 }, type: RangeError, message: 'numHeads (6) must be a multiple of numKeyValueHeads (4)' },
    { args: { dModel: 12, numHeads: 4, numKeyValueHeads: 0, seed: 1 }, type: RangeError, message: 'numKeyValueHeads must be from 1 to 4, got 0' },
    { args: { dModel: 12, numHeads: 4, headDim: 0, seed: 1 }, type: RangeError, message: 'headDim must be from 1 to 4096, got 0' },
    { args: { dModel: 12, numHeads: 64, headDim: 128, seed: 1 }, type: RangeError, message: 'numHeads × headDim is 64 × 128 = 8192, above the limit of 4096' },
    { args: { dModel: 4, numHeads: 2, numKeyValueHeads: 1, headDim: 3, weights: { wq: new Float32Array(24), wk: new Float32Array(11) } }, type: RangeError,
      message: 'weights.wk must have dModel × numKeyValueHeads·headDim = 4 × 3 = 12 values, got 11' },
  ])('createAttention throws a $type.name: $message', ({ args, type, message }) => {
    expect(() => engine.createAttention(args)).toThrow(type);
    expect(() => engine.createAttention(args)).toThrow(message);
  });

  test('a NaN weight is named with its index', () => {
    const w = Object.fromEntries(['wq', 'wk', 'wv', 'wo'].map((k) => [k, new Float32Array(16)]));
    ['bq', 'bk', 'bv', 'bo'].forEach((k) => { w[k] = new Float32Array(4); });
    w.wv[9] = NaN;
    expect(() => engine.createAttention({ dModel: 4, numHeads: 2, weights: w })).toThrow('weights.wv[9] is number NaN');
  });

  test.each([
    { args: [x, 0], type: RangeError, message: 'nTokens must be from 1 to 4096, got 0' },
    { args: [x, 5000], type: RangeError, message: 'nTokens must be from 1 to 4096, got 5000' },
    { args: [x, 2.5], type: TypeError, message: 'nTokens must be an integer, got number 2.5' },
    { args: [x, 3], type: RangeError, message: 'x must have nTokens × dModel = 3 × 12 = 36 values, got 24' },
    { args: [null, 2], type: TypeError, message: 'x must be a Float32Array (or an array of numbers), got null' },
    { args: [Float32Array.from(x).fill(Infinity, 7, 8), 2], type: RangeError, message: 'x[7] is number Infinity' },
    { args: [x, 2, { keyMask: [1, 1, 1] }], type: RangeError, message: 'keyMask must have one entry per token (nTokens = 2), got 3' },
    { args: [x, 2, { keyMask: [1, 2] }], type: RangeError, message: 'keyMask[1] is number 2; use 1 (visible) or 0 (hidden)' },
    { args: [x, 2, { keyMask: 'all' }], type: TypeError, message: 'keyMask must be a Uint8Array' },
    { args: [x, 2, { nKeys: 2 }], type: TypeError, message: 'options.nKeys needs options.keyValueInput' },
    { args: [x, 2, { queryPosition: 1 }], type: TypeError, message: 'options.queryPosition needs options.keyValueInput' },
    { args: [x, 2, { keyValueInput: x }], type: TypeError, message: 'options.nKeys must be an integer, got undefined' },
    { args: [x, 2, { keyValueInput: x, nKeys: 3 }], type: RangeError, message: 'options.keyValueInput must have nKeys × dModel = 3 × 12 = 36 values, got 24' },
    { args: [x, 2, { keyValueInput: x, nKeys: 2, queryPosition: -1 }], type: RangeError, message: 'options.queryPosition must be from 0 to 4096, got -1' },
    { args: [x, 2, { keyValueInput: [NaN, ...x.subarray(1)], nKeys: 2 }], type: RangeError, message: 'options.keyValueInput[0] is number NaN' },
    { args: [x, 2, { keyValueInput: x, nKeys: 2, keyMask: [1] }], type: RangeError, message: 'keyMask must have one entry per key (nKeys = 2), got 1' },
  ])('forward throws a $type.name: $message', ({ args, type, message }) => {
    expect(() => layer.forward(...args)).toThrow(type);
    expect(() => layer.forward(...args)).toThrow(message);
    expect(() => layer.output(...args)).toThrow(message);
  });

  test('a forward pass over the memory limit is refused by C++ before it allocates, as a RangeError', () => {
    const wide = engine.createAttention({ dModel: 64, numHeads: 32, seed: 2 });
    const before = engine.memory().usedBytes;
    const big = new Float32Array(4096 * 64);
    expect(() => wide.forward(big, 4096)).toThrow(RangeError);
    expect(() => wide.forward(big, 4096)).toThrow(/needs \d+ MiB, above the limit of 1024 MiB/);
    expect(engine.memory().usedBytes).toBe(before);
    wide.dispose();
  });

  test('a disposed layer or engine says so, and dispose() twice is harmless', async () => {
    const own = await loadEngine(options);
    const l = own.createAttention({ dModel: 12, numHeads: 3, seed: 1 });
    l.dispose();
    l.dispose();
    expect(l.disposed).toBe(true);
    expect(() => l.forward(x, 2)).toThrow('This attention layer has been disposed');
    const kept = own.createAttention({ dModel: 12, numHeads: 3, seed: 1 });
    own.dispose();
    expect(kept.disposed).toBe(true);
    expect(() => own.createAttention({ dModel: 12, numHeads: 3, seed: 1 })).toThrow('This engine has been disposed');
  });

  test('the engine works normally after every one of these errors', () => {
    const reference = engine.createAttention({ dModel: 12, numHeads: 3, seed: 1 }).output(x, 2);
    expect(layer.output(x, 2)).toEqual(reference);
  });

  test('200,000 errors raised inside C++ leak nothing and corrupt nothing', async () => {
    // Straight to the bindings, around the JavaScript checks, so C++ throws every time.
    const module = await instantiate(build);
    const native = module.createSeededAttention(12, 3, 3, 4, false, 7);
    const expected = module.forwardOutput(native, x, 2, undefined, undefined);
    const heap = module.memory().usedBytes;
    for (let i = 0; i < 100000; i++) {
      const badConfig = module.createSeededAttention(12, 4, 3, 3, false, 7);
      const badInput = module.forwardOutput(native, x, 3, undefined, undefined);
      if (!(badConfig instanceof Error) || !(badInput instanceof Error)) throw new Error(`call ${i} did not fail`);
    }
    expect(module.createSeededAttention(12, 4, 3, 3, false, 7).message).toBe('n_heads (4) must be a multiple of n_kv_heads (3)');
    expect(module.forwardOutput(native, x, 3, undefined, undefined).message).toBe('x has 24 values, expected n_tokens × d_model = 3 × 12 = 36');
    expect(module.forwardOutput(native, x, 2, undefined, undefined)).toEqual(expected);
    expect(module.memory().usedBytes).toBe(heap);
    native.delete();
  });
});

test('loadEngine rejects options it cannot use', async () => {
  await expect(loadEngine({ simd: 'yes' })).rejects.toThrow('simd must be true or false, got the string "yes"');
  await expect(loadEngine(null)).rejects.toThrow('loadEngine options must be an object, got null');
});
