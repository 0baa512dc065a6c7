// engine.loadModel and model.run on a tiny random BERT made in tiny-model.js, on both builds:
// loading from objects, text, bytes and file URLs; the result's shape; limits; every kind of
// malformed file; ablation and its options; and memory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS } from '../helpers.js';
import { TINY, safetensorsBytes, tinyConfig, tinyModelFiles, tinyTensors, tinyTokenizer } from '../tiny-model.js';

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine, model;
  beforeAll(async () => {
    engine = await loadEngine(options);
    model = await engine.loadModel(tinyModelFiles());
  });
  afterAll(() => engine.dispose());

  test('run() gives tokens, ids and every layer and head of attention', () => {
    const r = model.run('The cat sat on the mat.');
    expect(r.tokens).toEqual(['[CLS]', 'The', 'cat', 'sat', 'on', 'the', 'mat', '.', '[SEP]']);
    expect(Array.from(r.ids)).toEqual([2, 5, 6, 7, 8, 5, 9, 10, 3]);
    expect([r.layers, r.heads, r.truncated, r.totalTokens]).toEqual([2, 2, false, 9]);
    for (let l = 0; l < 2; l++) {
      for (let h = 0; h < 2; h++) {
        const a = r.attention(l, h);
        expect(a).toHaveLength(81);
        for (let i = 0; i < 9; i++) expect(a.subarray(i * 9, i * 9 + 9).reduce((x, y) => x + y)).toBeCloseTo(1, 5);
      }
      expect(r.trace(l).queries(1)).toHaveLength(9 * 4);
    }
    expect(r.hidden).toHaveLength(9 * TINY.d);
    expect(r.layerInput(1)).toHaveLength(9 * TINY.d);
    expect(() => r.layerInput(2)).toThrow('layer must be from 0 to 1, got 2');
    // The first layer's queries are its input times W_q plus b_q.
    const input = r.layerInput(0);
    const wq = tinyTensors()['encoder.layer.0.attention.self.query.weight'].values; // (out, in)
    const bq = tinyTensors()['encoder.layer.0.attention.self.query.bias'].values;
    let q = bq[1];
    for (let p = 0; p < TINY.d; p++) q += input[2 * TINY.d + p] * wq[1 * TINY.d + p];
    expect(r.trace(0).queries(0)[2 * 4 + 1]).toBeCloseTo(q, 4);
    expect(() => r.attention(2, 0)).toThrow('layer must be from 0 to 1, got 2');
    expect(() => r.attention(0, 2)).toThrow('head must be from 0 to 1, got 2');
  });

  test('an unknown word keeps its text and is marked unknown; emoji and non-Latin text never fail', () => {
    const r = model.run('The Zebra 🦓 猫 mat—naïve');
    expect(r.truncated).toBe(false);
    expect(r.tokens).toEqual(['[CLS]', 'The', 'Zebra', '🦓', '猫', 'mat', '—', 'naïve', '[SEP]']);
    expect(r.unknown).toEqual([false, false, true, true, true, false, true, true, false]);
    expect(r.ids[2]).toBe(1);
  });

  test('text longer than the positions is truncated, keeping [SEP], and the result says so', () => {
    const r = model.run('the cat sat on the mat the cat sat on the mat');
    expect(r.truncated).toBe(true);
    expect(r.totalTokens).toBe(14);
    expect(r.tokens).toHaveLength(TINY.positions);
    expect(r.tokens.at(-1)).toBe('[SEP]');
    expect(r.attention(0, 0)).toHaveLength(TINY.positions ** 2);
  });

  test('maxTokens cuts a run shorter than the model\'s positions, as they would, and its attention is the same as the short text\'s', () => {
    const r = model.run('the cat sat on the mat the cat', { maxTokens: 5 });
    expect([r.truncated, r.totalTokens, r.tokens]).toEqual([true, 10, ['[CLS]', 'the', 'cat', 'sat', '[SEP]']]);
    const short = model.run('the cat sat');
    for (let h = 0; h < TINY.heads; h++) expect(r.attention(1, h)).toEqual(short.attention(1, h));
    expect(model.run('the cat', { maxTokens: TINY.positions }).truncated).toBe(false);
  });

  test.each([['', 'prompt is empty'], ['  \n\t ', 'prompt is empty']])('empty text %p gets a clear RangeError', (text, message) => {
    expect(() => model.run(text)).toThrow(RangeError);
    expect(() => model.run(text)).toThrow(message);
  });

  test('a non-string gets a TypeError', () => {
    expect(() => model.run(42)).toThrow('the prompt must be text (a string) or { messages: [{ role, content }, …] }, got number 42');
  });

  test('ablate switches heads off: earlier layers stay, later ones and the result change, and the result says which', () => {
    const text = 'the cat sat on the mat';
    const plain = model.run(text);
    const r = model.run(text, { ablate: [{ layer: 1, head: 0 }, { layer: 0, head: 1 }], ablation: 'mean' });
    expect(r.ablated).toEqual([{ layer: 0, head: 1 }, { layer: 1, head: 0 }]);
    expect(r.ablation).toBe('mean');
    expect(plain.ablated).toEqual([]);
    expect(plain.ablation).toBeNull();
    expect(r.attention(0, 1)).toEqual(plain.attention(0, 1)); // an ablated head still attends as before
    expect(r.attention(1, 1)).not.toEqual(plain.attention(1, 1)); // layer 1 reads what layer 0 changed
    // The lazy trace recomputes with the same heads off: head 0's output in layer 1 is its mean.
    const out = r.trace(1).headOutput(0), width = out.length / r.ids.length;
    for (let i = 1; i < r.ids.length; i++) expect(Array.from(out.subarray(i * width, (i + 1) * width))).toEqual(Array.from(out.subarray(0, width)));
    const zero = model.run(text, { ablate: [{ layer: 1, head: 0 }] });
    expect(zero.ablation).toBe('zero');
    expect(Math.max(...zero.trace(1).headOutput(0).map(Math.abs))).toBe(0);
    expect(model.run(text, { ablate: [] }).hidden).toEqual(plain.hidden);
  });

  // What a run keeps is bounded: the layers past maxAttentionBytes are recomputed from their inputs
  // when asked for, giving the very numbers a full run keeps (Qwen2.5-0.5B at 1024 tokens would
  // otherwise keep 1.3 GiB).
  test('a run keeps the attention of the layers that fit in maxAttentionBytes and recomputes the others, exactly', async () => {
    const text = 'The cat sat on the mat.';
    const full = model.run(text);
    const layerBytes = 4 * model.numHeads * full.ids.length ** 2;
    expect(full.keptLayers).toBe(2);
    const one = model.run(text, { maxAttentionBytes: layerBytes });
    const none = model.run(text, { maxAttentionBytes: 0 });
    expect([one.keptLayers, none.keptLayers, model.run(text, { maxAttentionBytes: layerBytes - 1 }).keptLayers]).toEqual([1, 0, 0]);
    for (let l = 0; l < 2; l++) {
      for (let h = 0; h < 2; h++) {
        expect(one.attention(l, h)).toEqual(full.attention(l, h));
        expect(none.attention(l, h)).toEqual(full.attention(l, h));
        expect([none.attention(l, h).nQueries, none.attention(l, h).nKeys]).toEqual([9, 9]);
      }
    }
    // Recomputing needs the model: a kept layer outlives it, a recomputed one says why not.
    const other = await engine.loadModel(tinyModelFiles());
    const kept = other.run(text, { maxAttentionBytes: layerBytes });
    other.dispose();
    expect(kept.attention(0, 1)).toEqual(full.attention(0, 1));
    expect(() => kept.attention(1, 0)).toThrow('The model that made this result has been disposed: trace() computes from the model');
  });

  test.each([
    [null, TypeError, 'run options must be an object, got null'],
    [{ ablate: [{ layer: 0, head: 0 }], ablations: 'zero' }, TypeError, 'run has no option ablations; its options are ablate, ablation, maxAttentionBytes, maxTokens, continuation, interrupt, onLayer and target'],
    [{ maxTokens: 0 }, RangeError, 'maxTokens must be from 1 to 10, got 0'],
    [{ maxTokens: 11 }, RangeError, 'maxTokens must be from 1 to 10, got 11'],
    [{ maxTokens: 2.5 }, TypeError, 'maxTokens must be an integer, got number 2.5'],
    [{ ablate: { layer: 0, head: 0 } }, TypeError, 'ablate must be an Array of { layer, head }, got an object (Object)'],
    [{ ablate: [{ layer: 2, head: 0 }] }, RangeError, 'ablate[0].layer must be from 0 to 1, got 2'],
    [{ ablate: [{ layer: 0, head: 0.5 }] }, TypeError, 'ablate[0].head must be an integer, got number 0.5'],
    [{ ablate: [7] }, TypeError, 'ablate[0] must be an object, got number 7'],
    [{ ablate: [{ layer: 0, head: 1 }, { layer: 0, head: 1 }] }, RangeError, 'ablate lists layer 0 head 1 twice'],
    [{ ablate: Array(5).fill({ layer: 0, head: 0 }) }, RangeError, 'ablate lists 5 heads; the model has 4'],
    [{ ablate: [{ layer: 0, head: 0 }], ablation: 'half' }, TypeError, 'ablation must be \'zero\' or \'mean\', got the string "half"'],
    [{ maxAttentionBytes: -1 }, RangeError, 'maxAttentionBytes must be from 0 to 9007199254740991, got -1'],
    [{ maxAttentionBytes: '512' }, TypeError, 'maxAttentionBytes must be an integer, got the string "512"'],
  ])('run options %p get a clear error', (options, Type, message) => {
    expect(() => model.run('the cat', options)).toThrow(Type);
    expect(() => model.run('the cat', options)).toThrow(message);
    expect(model.run('the cat').tokens).toHaveLength(4); // and the model still works
  });

  test('a getter in ablate is read once, before anything runs', () => {
    let reads = 0;
    const entry = { get layer() { reads++; return 1; }, head: 0 };
    expect(model.run('the cat', { ablate: [entry] }).ablated).toEqual([{ layer: 1, head: 0 }]);
    expect(reads).toBe(1);
  });

  test('loads the same model from text, bytes and a folder of files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'multihead-model-'));
    try {
      const files = tinyModelFiles();
      writeFileSync(join(dir, 'config.json'), JSON.stringify(files.config));
      writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(files.tokenizer));
      writeFileSync(join(dir, 'model.safetensors'), files.weights);
      const fromFolder = await engine.loadModel(pathToFileURL(dir));
      const fromText = await engine.loadModel({
        config: JSON.stringify(files.config), tokenizer: JSON.stringify(files.tokenizer), weights: files.weights.buffer,
      });
      const expected = model.run('the cat sat').hidden;
      expect(fromFolder.run('the cat sat').hidden).toEqual(expected);
      expect(fromText.run('the cat sat').hidden).toEqual(expected);
      fromFolder.dispose();
      fromText.dispose();
      await expect(engine.loadModel(pathToFileURL(join(dir, 'nowhere')))).rejects.toThrow(/cannot read config.json from file:/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  test('a source with several bad files names the first in file order, however fast each read fails', async () => {
    // The missing config.json fails after a disk read; the tokenizer fails at once.
    const source = { config: pathToFileURL(join(tmpdir(), 'multihead-missing', 'config.json')), tokenizer: 42, weights: new ArrayBuffer(0) };
    for (let i = 0; i < 3; i++) await expect(engine.loadModel(source)).rejects.toThrow(/^cannot read config.json from file:/);
  });

  const header = (entries) => JSON.stringify(entries);
  const withWeights = (weights) => ({ config: tinyConfig(), tokenizer: tinyTokenizer(), weights });
  const good = safetensorsBytes(tinyTensors());
  test.each([
    ['a truncated file', () => good.slice(0, good.length - 100), `the file ended after ${good.length - 100} bytes, but its header describes ${good.length}`],
    ['a file shorter than its header length', () => good.slice(0, 20), 'model.safetensors: the file is 20 bytes, shorter than the'],
    ['a header length larger than any header', () => { const b = good.slice(); b[6] = 1; return b; }, 'is above the limit of 16777216 bytes'],
    ['a header that is not JSON', () => safetensorsBytes({}, '{"a": [1, 2'), 'the header is not valid JSON'],
    ['overlapping offsets', () => safetensorsBytes(tinyTensors(), header({
      a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [2], data_offsets: [4, 12] } })),
    "tensors 'a' and 'b' overlap"],
    ['a weight of the wrong dtype', () => { const t = tinyTensors(); t['embeddings.LayerNorm.bias'].dtype = 'I32'; return safetensorsBytes(t); },
      "tensor 'embeddings.LayerNorm.bias' has dtype I32"],
    ['an unknown tensor', () => safetensorsBytes({ ...tinyTensors(), 'encoder.layer.0.extra': { dtype: 'F32', shape: [1], values: [0] } }),
      "tensor 'encoder.layer.0.extra' is not a weight of a 2-layer bert model"],
    ['a missing tensor', () => { const t = tinyTensors(); delete t['encoder.layer.1.output.dense.bias']; return safetensorsBytes(t); },
      "has no tensor 'encoder.layer.1.output.dense.bias'"],
    ['a wrong shape', () => { const t = tinyTensors(); t['embeddings.LayerNorm.bias'].shape = [2, 4]; return safetensorsBytes(t); },
      "tensor 'embeddings.LayerNorm.bias' has shape [2, 4], expected [8]"],
  ])('%s gets a clear error, and the engine keeps working', async (_, makeBytes, message) => {
    await expect(engine.loadModel(withWeights(makeBytes()))).rejects.toThrow(message);
    expect(model.run('the cat').tokens).toHaveLength(4);
  });

  test.each([
    [{ hidden_size: 7 }, 'config.json: hidden_size (7) must be divisible by num_attention_heads (2)'],
    [{ model_type: 'gpt2' }, 'config.json: n_embd is missing'],
    [{ num_hidden_layers: 3 }, "has no tensor 'encoder.layer.2."],
  ])('a config with %p gets a clear error', async (overrides, message) => {
    await expect(engine.loadModel({ ...tinyModelFiles(), config: tinyConfig(overrides) })).rejects.toThrow(message);
  });

  test('a malformed tokenizer.json gets a clear error', async () => {
    await expect(engine.loadModel({ ...tinyModelFiles(), tokenizer: '{"model": ' })).rejects.toThrow('tokenizer.json is not valid JSON');
  });

  test('1,000 cycles of load, run and dispose leave the heap in-use bytes unchanged', async () => {
    const files = tinyModelFiles();
    const cycle = async () => {
      const m = await engine.loadModel(files);
      m.run('the cat sat on the mat');
      m.dispose();
    };
    await cycle();
    const before = engine.memory().usedBytes;
    for (let i = 0; i < 1000; i++) await cycle();
    expect(engine.memory().usedBytes).toBe(before);
  });

  test('a disposed model says so', async () => {
    const m = await engine.loadModel(tinyModelFiles());
    m.dispose();
    expect(() => m.run('the cat')).toThrow('This model has been disposed');
  });
});
