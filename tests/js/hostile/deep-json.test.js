// Defect 3 of issue 11, the JavaScript side: JSON that nests deeper than any real model file,
// given as text or as an object, is refused by name before a parser or the tokenizer library
// recurses into it (the C++ side, for config.json text and the safetensors header, is tested in
// config-files.test.js).
import { loadEngine } from '../../../web/src/index.js';
import { MAX_JSON_DEPTH, readModelFiles } from '../../../web/src/loading/sources.js';
import { HOSTILE_BUILDS } from '../helpers.js';
import { tinyModelFiles } from '../tiny-model.js';
import { rejections, used } from './hostile.js';

/** An object `depth` levels deep: { a: { a: … { a: 1 } } }. */
function nested(depth) {
  const root = {};
  let node = root;
  for (let i = 1; i < depth; i++) node = node.a = {};
  node.a = 1;
  return root;
}

/** A tokenizer.json whose normalizer is a Sequence of Sequences `depth` deep. */
function deepTokenizer(depth) {
  const tokenizer = tinyModelFiles().tokenizer;
  let normalizer = { type: 'Lowercase' };
  for (let i = 0; i < depth; i++) normalizer = { type: 'Sequence', normalizers: [normalizer] };
  return { ...tokenizer, normalizer };
}

/** The same as text, written directly: JSON.stringify itself cannot go that deep. */
function deepTokenizerText(depth) {
  const text = JSON.stringify({ ...tinyModelFiles().tokenizer, normalizer: 'HERE' });
  const normalizer = '{"type":"Sequence","normalizers":['.repeat(depth) + '{"type":"Lowercase"}' + ']}'.repeat(depth);
  return text.replace('"HERE"', normalizer);
}

describe.each(HOSTILE_BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(options); });
  afterAll(() => engine.dispose());

  test.each([
    ['tokenizer.json, as an object', (files) => ({ ...files, tokenizer: deepTokenizer(20000) }), 'tokenizer.json'],
    ['tokenizer.json, as text', (files) => ({ ...files, tokenizer: deepTokenizerText(20000) }), 'tokenizer.json'],
    ['config.json, as an object', (files) => ({ ...files, config: { ...files.config, hidden_act: nested(20000) } }), 'config.json'],
  ])('%s nested 20,000 deep is refused by name: 1,000 loads leave nothing allocated', async (what, change, file) => {
    const files = tinyModelFiles();
    (await engine.loadModel(files)).dispose();
    const before = used(engine);
    const deep = change(files);
    expect(await rejections(() => engine.loadModel(deep), 1000)).toEqual([
      `${file} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep (or contains itself); real model files nest a few levels`]);
    expect(used(engine)).toBe(before);
  });

  test('a config object that contains itself is refused by name', async () => {
    const files = tinyModelFiles();
    const config = { ...files.config };
    config.task_specific_params = { loop: config };
    await expect(engine.loadModel({ ...files, config })).rejects.toThrow('config.json nests objects or arrays more than');
  });

  test(`a tokenizer nested ${MAX_JSON_DEPTH} levels deep still loads`, async () => {
    const files = tinyModelFiles();
    // The normalizer sits at depth 2; each Sequence adds two (the object and its array).
    const model = await engine.loadModel({ ...files, tokenizer: deepTokenizer((MAX_JSON_DEPTH - 3) / 2 | 0) });
    expect(model.run('the cat').tokens).toEqual(['[CLS]', 'the', 'cat', '[SEP]']);
    model.dispose();
  });
});

test('a tokenizer object whose getter changes its answer is read once: the checks and the library see the same vocabulary', async () => {
  const engine = await loadEngine();
  const files = tinyModelFiles();
  const { model: wordPiece } = files.tokenizer;
  let reads = 0;
  const model = {
    ...wordPiece,
    get vocab() { return reads++ === 0 ? wordPiece.vocab : { ...wordPiece.vocab, cat: 2 ** 32 + 6 }; },
  };
  const loaded = await engine.loadModel({ ...files, tokenizer: { ...files.tokenizer, model } });
  expect(reads).toBe(1);
  expect(Array.from(loaded.run('the cat').ids)).toEqual([2, 5, 6, 3]);
  engine.dispose();
});

describe('files given as objects are copied as plain JSON before anything reads them', () => {
  const weights = new Uint8Array(8);

  test('keys keep their order, and __proto__ stays a key', async () => {
    const config = JSON.parse('{"b": 1, "a": {"z": 2, "y": 3}, "__proto__": {"polluted": true}}');
    const files = await readModelFiles({ config, tokenizer: { version: '1.0', model: { z: 1, a: 2 } }, weights });
    expect(files.config).toBe('{"b":1,"a":{"z":2,"y":3},"__proto__":{"polluted":true}}');
    expect(Object.keys(files.tokenizer.model)).toEqual(['z', 'a']);
    expect({}.polluted).toBeUndefined();
  });

  test('a function, a symbol or a BigInt is refused by its path, and no toJSON of the caller runs', async () => {
    let called = false;
    const hook = () => {};
    hook.toJSON = () => { called = true; return 'x'; };
    await expect(readModelFiles({ config: { model_type: 'bert', extra: { hook } }, tokenizer: {}, weights }))
      .rejects.toThrow('config.json extra.hook is a function, which JSON cannot hold');
    await expect(readModelFiles({ config: {}, tokenizer: { model: { vocab: { 'the cat': 10n } } }, weights }))
      .rejects.toThrow('tokenizer.json model.vocab["the cat"] is a bigint, which JSON cannot hold');
    await expect(readModelFiles({ config: {}, tokenizer: { added_tokens: [Symbol('x')] }, weights }))
      .rejects.toThrow('tokenizer.json added_tokens[0] is a symbol, which JSON cannot hold');
    expect(called).toBe(false);
  });

  test('a property set to undefined is left out, as JSON.stringify leaves it', async () => {
    const files = await readModelFiles({ config: { model_type: 'bert', decoder: undefined }, tokenizer: { decoder: undefined }, weights });
    expect(files.config).toBe('{"model_type":"bert"}');
    expect('decoder' in files.tokenizer).toBe(false);
  });
});
