// Hostile model files through engine.loadModel({ config, tokenizer, weights }), on both builds:
// config.json and safetensors headers nested ten thousand levels deep, extreme numbers, shapes
// that do not match. Each gets one clear message naming
// the file, the field and the value as written, and leaves the engine working with its heap
// unchanged. The tokenizer's hostile files, and configs given as JS objects, are other suites'.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { HOSTILE_BUILDS } from '../helpers.js';
import { safetensorsBytes, tinyConfig, tinyModelFiles, tinyTensors } from '../tiny-model.js';

/** Every model_type the engine runs, in its registry's order (cpp/src/architectures/registry.cpp). */
const TYPES = 'bart, bert, distilbert, gemma3_text, gpt2, gpt_neox, llama, marian, mistral, qwen2, qwen3, roberta, t5';

/** config.json text: the tiny model's, with `fields` (JSON text) added after its own. */
const configText = (fields) => `${JSON.stringify(tinyConfig()).slice(0, -1)}, ${fields}}`;
const nested = (depth) => '['.repeat(depth) + ']'.repeat(depth);

describe.each(HOSTILE_BUILDS)('the %s build', (build, options) => {
  let engine, model;
  beforeAll(async () => {
    engine = await loadEngine(options);
    model = await engine.loadModel(tinyModelFiles());
  });
  afterAll(() => engine.dispose());

  const load = (source) => engine.loadModel({ ...tinyModelFiles(), ...source });
  const expectWorking = () => expect(model.run('the cat sat').tokens).toEqual(['[CLS]', 'the', 'cat', 'sat', '[SEP]']);

  describe('JSON nested ten thousand levels deep', () => {
    test.each(['model_type', 'hidden_act', 'vocab_size'])('in config.json\'s %s gets a clean error, not a stack overflow', async (field) => {
      for (const depth of [10000, 100000]) {
        await expect(load({ config: configText(`"${field}": ${nested(depth)}`) }))
          .rejects.toThrow(new Error('config.json: JSON nested deeper than 64 levels'));
      }
      expectWorking();
    });

    test.each([
      ['a shape', `{"w": {"dtype": "F32", "shape": ${nested(10000)}, "data_offsets": [0, 0]}}`],
      ['a tensor entry', `{"w": ${nested(20000)}}`],
      ['__metadata__', `{"__metadata__": ${nested(100000)}}`],
    ])('in the safetensors header (%s) gets a clean error', async (_, header) => {
      await expect(load({ weights: safetensorsBytes({}, header) }))
        .rejects.toThrow(new Error("model.safetensors: the header's JSON is nested deeper than 64 levels"));
      expectWorking();
    });

    test('1,000 such failing loads of each file leave the heap in-use bytes unchanged', async () => {
      const deepConfig = { config: configText(`"vocab_size": ${nested(10000)}`) };
      const deepHeader = { weights: safetensorsBytes({}, `{"w": {"dtype": "F32", "shape": ${nested(10000)}, "data_offsets": [0, 0]}}`) };
      const fail = async (source) => { await expect(load(source)).rejects.toThrow('nested deeper than 64 levels'); };
      await fail(deepConfig);
      await fail(deepHeader);
      const before = engine.memory().usedBytes;
      for (let i = 0; i < 1000; i++) {
        await fail(deepConfig);
        await fail(deepHeader);
      }
      expect(engine.memory().usedBytes).toBe(before);
      expectWorking();
    });
  });

  describe('config.json values are reported as written, naming the field', () => {
    test.each([
      ['an unsigned value that int64 would wrap to -1', '"hidden_size": 18446744073709551615',
        'config.json: hidden_size must be from 1 to 4096, got 18446744073709551615'],
      ['a layer_norm_eps that a float rounds to 0', '"layer_norm_eps": 1e-50',
        'config.json: layer_norm_eps must be from 1.2e-38 (the smallest normal float) to below 1, got 1e-50'],
      ['heads that do not divide the width', '"hidden_size": 127, "num_attention_heads": 4',
        'config.json: hidden_size (127) must be divisible by num_attention_heads (4)'],
      ['a model too large for the heap', '"vocab_size": 1048576, "hidden_size": 4096, "num_attention_heads": 64, "intermediate_size": 16384, "num_hidden_layers": 64, "max_position_embeddings": 512',
        'config.json: vocab_size (1048576), hidden_size (4096), num_hidden_layers (64), intermediate_size (16384) and max_position_embeddings (512) make 32.01 GiB of weights even as bfloat16, above the limit of 2.50 GiB'],
      ['an integer written as a float', '"intermediate_size": 1e20', 'config.json: intermediate_size must be an integer, got 1e+20'],
      ['a number no double can hold', '"vocab_size": 1e400', "config.json: not valid JSON (number overflow parsing '1e400')"],
      ['a long string', `"model_type": "${'b'.repeat(100000)}"`, `config.json: model_type "${'b'.repeat(79)}… is not supported; supported model types are ${TYPES}`],
    ])('%s', async (_, fields, message) => {
      const error = await load({ config: configText(fields) }).catch((e) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toBe(message);
      expectWorking();
    });

    test.each([
      ['{', 'config.json: not valid JSON (parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal)'],
      ['[]', 'config.json: must be a JSON object, got array'],
      ['{}', `config.json: model_type is missing; supported model types are ${TYPES}`],
      ['{"model_type": "xlnet"}', `config.json: model_type "xlnet" is not supported; supported model types are ${TYPES}`],
      ['{"model_type": "gpt2"}', 'config.json: vocab_size is missing'],
      ['{"model_type": "bert", "hidden_act": "quick_gelu"}', 'config.json: hidden_act must be one of "gelu", "gelu_new", "gelu_pytorch_tanh", "silu", "swish", "relu", got "quick_gelu"'],
      ['{"model_type": "bert"}', 'config.json: vocab_size is missing'],
      ['{"model_type": "bert", "vocab_size": "12"}', 'config.json: vocab_size must be an integer, got "12"'],
      ['{"model_type": "bert", "vocab_size": -1}', 'config.json: vocab_size must be from 1 to 1048576, got -1'],
    ])('every config.json error starts with config.json: %s', async (text, message) => {
      await expect(load({ config: text })).rejects.toThrow(new Error(message));
    });
  });

  describe('every tensor error starts with model.safetensors', () => {
    test.each([
      ['a missing tensor', () => { const t = tinyTensors(); delete t['encoder.layer.1.output.dense.bias']; return safetensorsBytes(t); },
        "model.safetensors: the file has no tensor 'encoder.layer.1.output.dense.bias'"],
      ['a wrong shape', () => { const t = tinyTensors(); t['embeddings.LayerNorm.bias'].shape = [2, 4]; return safetensorsBytes(t); },
        "model.safetensors: tensor 'embeddings.LayerNorm.bias' has shape [2, 4], expected [8] from config.json"],
      ['a negative shape entry', () => safetensorsBytes({}, '{"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}'),
        "model.safetensors: tensor 'w' shape entry must be a non-negative integer that fits in memory, got -1"],
      ['a non-finite value', () => { const t = tinyTensors(); t['embeddings.LayerNorm.weight'].values[5] = NaN; return safetensorsBytes(t); },
        "model.safetensors: tensor 'embeddings.LayerNorm.weight' value 5 is not finite"],
    ])('%s', async (_, makeBytes, message) => {
      await expect(load({ weights: makeBytes() })).rejects.toThrow(new Error(message));
      expectWorking();
    });
  });

  // Issue 43: a header that names a weight twice, its second copy all zeros at the end of the data,
  // loaded and ran with the zeros (the qwen2 checkpoint's logit of id 0 went from 6.89 to -5.74).
  test('a real checkpoint whose header names a weight twice is refused, as Python\'s safetensors refuses it', async () => {
    const dir = fileURLToPath(new URL('../../fixtures/checkpoints/qwen2/', import.meta.url));
    const bytes = readFileSync(`${dir}model.safetensors`);
    const length = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + length).toString());
    const name = 'model.layers.0.input_layernorm.weight';
    const data = bytes.subarray(8 + length);
    const { dtype, shape, data_offsets: [begin, end] } = header[name];
    const copy = JSON.stringify({ dtype, shape, data_offsets: [data.length, data.length + end - begin] });
    const text = Buffer.from(`${bytes.subarray(8, 8 + length).toString().trimEnd().slice(0, -1)},${JSON.stringify(name)}:${copy}}`);
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(BigInt(text.length));
    const files = { config: readFileSync(`${dir}config.json`), tokenizer: readFileSync(`${dir}tokenizer.json`) };
    await expect(engine.loadModel({ ...files, weights: Buffer.concat([prefix, text, data, Buffer.alloc(end - begin)]) }))
      .rejects.toThrow(new Error(`model.safetensors: the header names tensor '${name}' twice`));
    (await engine.loadModel({ ...files, weights: bytes })).dispose(); // the file itself loads
    expectWorking();
  });
});
