// model.run(source, { target }) on the encoder–decoder fixtures (tests/fixtures/seq2seq: T5,
// Flan-T5, BART and Marian with their tokenizer files), in every build: the source's and the decoder's
// tokens as Hugging Face makes them (the start ids first, the target shifted right), the three
// kinds of attention and the logits against the float64 reference, the same numbers recomputed
// when the result keeps none, ablation by stack, and the errors a user can meet.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, maxAbsDiff, readModelCase } from '../helpers.js';

const DIR = fileURLToPath(new URL('../../fixtures/seq2seq/', import.meta.url));
// Marian's folder has no tokenizer.json: source.spm, target.spm and vocab.json, as Helsinki-NLP's repositories.
const WITH_TOKENIZER = ['bart', 'flan-t5', 'marian', 't5-small'];

// Every head's weights of one kind of attention, laid out as the fixture's (L, H, rows, columns).
function gather(result, method, layers, heads) {
  const parts = [];
  for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) parts.push(...result[method](l, h));
  return Float32Array.from(parts);
}

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(options); });
  afterAll(() => engine.dispose());

  test.each(WITH_TOKENIZER)('%s: run(source, { target }) matches the float64 reference', async (name) => {
    const model = await engine.loadModel(`${DIR}${name}`);
    const fixture = readModelCase(`${DIR}${name}/cases/sentence`);
    const { sourceText: source, targetText: target } = fixture;
    const config = JSON.parse(readFileSync(`${DIR}${name}/config.json`, 'utf8'));
    expect(model.encoderDecoder).toBe(true);
    expect(model.numDecoderLayers).toBe(config.decoder_layers ?? config.num_decoder_layers ?? config.num_layers);
    expect(model.decoderStartIds).toEqual(config.forced_bos_token_id === undefined ? [config.decoder_start_token_id] : [config.decoder_start_token_id, config.forced_bos_token_id]);
    const result = model.run(source, { target });
    expect(Array.from(result.ids)).toEqual(Array.from(fixture.source));
    expect(Array.from(result.targetIds)).toEqual(Array.from(fixture.target));
    expect(result.targetTokens).toHaveLength(result.targetIds.length);
    const { numLayers: L, numDecoderLayers: Ld, numHeads: H } = model;
    const ns = result.ids.length, nt = result.targetIds.length;
    expect(result.crossAttention(0, 0)).toMatchObject({ nQueries: nt, nKeys: ns });
    const checks = [['attention', 'encoder_attention', L], ['decoderAttention', 'decoder_attention', Ld], ['crossAttention', 'cross_attention', Ld]];
    for (const [method, key, layers] of checks) expect(maxAbsDiff(gather(result, method, layers, H), fixture[key])).toBeLessThan(1e-5);
    const want = fixture.logits, V = model.vocabSize;
    const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    for (let t = 0; t < nt; t++) expect(maxAbsDiff(result.logits(t), want.subarray(t * V, (t + 1) * V)) / scale).toBeLessThan(1e-4);
    expect(result.predictions(nt - 1, 3)).toHaveLength(3);

    // The same numbers when the result keeps no weights, and from the target given as ids.
    const lean = model.run(source, { target: { ids: Array.from(result.targetIds.subarray(model.decoderStartIds.length)) }, maxAttentionBytes: 0 });
    for (const [method, , layers] of checks) expect(maxAbsDiff(gather(lean, method, layers, H), gather(result, method, layers, H))).toBe(0);
    expect(lean.trace(Ld - 1, 'cross').weights(H - 1)).toEqual(result.crossAttention(Ld - 1, H - 1));
    model.dispose();
  });

  test.each(WITH_TOKENIZER)('%s: a cross head switched off changes what comes after it, and only that', async (name) => {
    const model = await engine.loadModel(`${DIR}${name}`);
    const { sourceText: source, targetText: target } = readModelCase(`${DIR}${name}/cases/sentence`);
    const plain = model.run(source, { target });
    const ablated = model.run(source, { target, ablate: [{ layer: 0, head: 1, stack: 'cross' }] });
    expect(ablated.ablated).toEqual([{ layer: 0, head: 1, stack: 'cross' }]);
    expect(ablated.attention(model.numLayers - 1, 0)).toEqual(plain.attention(model.numLayers - 1, 0)); // the encoder comes before
    expect(ablated.crossAttention(0, 1)).toEqual(plain.crossAttention(0, 1)); // its own weights are still computed
    expect(maxAbsDiff(ablated.decoderAttention(1, 0), plain.decoderAttention(1, 0))).toBeGreaterThan(1e-6);
    model.dispose();
  });

  test.each(WITH_TOKENIZER)('%s: generate() writes the reference\'s greedy tokens, each step with its cross-attention row', async (name) => {
    const model = await engine.loadModel(`${DIR}${name}`);
    const { sourceText: source } = readModelCase(`${DIR}${name}/cases/sentence`);
    const greedy = JSON.parse(readFileSync(`${DIR}${name}/greedy.json`, 'utf8'));
    const writing = model.generate(source, { maxNewTokens: greedy.ids.length });
    const steps = [];
    for await (const step of writing) steps.push(step);
    const written = steps.map((s) => s.id);
    // The reference writes on past </s>; the writing stops there.
    expect(written).toEqual(greedy.ids.slice(0, written.length));
    expect(writing.stopReason).toBe(written.length === greedy.ids.length ? 'maxNewTokens' : 'eos');
    const result = await writing.result;
    expect(Array.from(result.targetIds)).toEqual([...model.decoderStartIds, ...written]);
    const run = model.run(source, { target: { ids: written } });
    const start = model.decoderStartIds.length, H = model.numHeads;
    for (const [i, step] of steps.entries()) {
      for (let l = 0; l < model.numDecoderLayers; l++) {
        for (let h = 0; h < H; h++) {
          const row = run.crossAttention(l, h).subarray((start + i) * result.ids.length, (start + i + 1) * result.ids.length);
          expect(maxAbsDiff(step.crossAttention(l, h), row)).toBeLessThan(1e-5);
        }
      }
    }
    for (let l = 0; l < model.numDecoderLayers; l++) {
      expect(maxAbsDiff(result.crossAttention(l, 0), run.crossAttention(l, 0))).toBeLessThan(1e-5);
      expect(maxAbsDiff(result.decoderAttention(l, 0), run.decoderAttention(l, 0))).toBeLessThan(1e-5);
    }
    expect(writing.text).toBe(model.decode(written, { skipSpecialTokens: true }));
    model.dispose();
  });

  test('bad targets and ablations get clear errors, and the model keeps working', async () => {
    const model = await engine.loadModel(`${DIR}${WITH_TOKENIZER[WITH_TOKENIZER.length - 1]}`);
    expect(() => model.run('the cat', { target: 7 })).toThrow('target must be text or { ids: [token ids] }, got number 7');
    expect(() => model.run('the cat', { target: { ids: [model.vocabSize] } })).toThrow(`target.ids[0] must be from 0 to ${model.vocabSize - 1}, got ${model.vocabSize}`);
    expect(() => model.run('the cat', { target: { ids: new Array(model.maxTokens).fill(3) } })).toThrow(/more than the model's/);
    // A long target text is read only as far as it must be: its count is a lower bound, and says so.
    expect(() => model.run('the cat', { target: 'die Kinder '.repeat(5000) })).toThrow(/^the target has at least \d+ tokens, which with the 1 start token are more than the model's/);
    expect(() => model.run('the cat', { ablate: [{ layer: 0, head: 0, stack: 'sideways' }] })).toThrow("ablate[0].stack must be 'encoder', 'decoder' or 'cross', got the string \"sideways\"");
    expect(() => model.run('the cat', { ablate: [{ layer: model.numDecoderLayers, head: 0, stack: 'cross' }] })).toThrow(`ablate[0].layer must be from 0 to ${model.numDecoderLayers - 1}`);
    expect(() => model.run('the cat', { onLayer: () => {} })).toThrow(/onLayer and continuation are one-stack models'/);
    const result = model.run('the cat');
    expect(Array.from(result.targetIds)).toEqual(model.decoderStartIds);
    expect(() => result.crossAttention(0, model.numHeads)).toThrow(`head must be from 0 to ${model.numHeads - 1}`);
    expect(() => result.trace(0, 'up')).toThrow("stack must be 'encoder', 'decoder' or 'cross'");
    model.dispose();
    expect(() => result.trace(0, 'cross')).toThrow('The model that made this result has been disposed');
  });

  test('the decoder\'s start comes from generation_config.json first, then config.json, and without one the model is refused', async () => {
    const dir = `${DIR}t5-small/`;
    const files = (config, generationConfig) => ({ config, tokenizer: new URL(`file://${dir}tokenizer.json`), weights: new URL(`file://${dir}model.safetensors`), generationConfig });
    const config = JSON.parse(readFileSync(`${dir}config.json`, 'utf8'));
    const started = await engine.loadModel(files(config, { decoder_start_token_id: 2 }));
    expect(started.decoderStartIds).toEqual([2]);
    expect(Array.from(started.run('the river').targetIds)).toEqual([2]);
    started.dispose();
    const { decoder_start_token_id: _, ...without } = config;
    await expect(engine.loadModel(files(without))).rejects.toThrow('config.json (and generation_config.json) has no decoder_start_token_id');
    await expect(engine.loadModel(files({ ...config, decoder_start_token_id: 1e9 }))).rejects.toThrow("config.json's decoder_start_token_id must be a token id from 0 to");
  });

  test('a one-stack model refuses a target and an ablation stack', async () => {
    const model = await engine.loadModel();
    expect(() => model.run('the cat sat', { target: 'x' })).toThrow("run's target is an encoder–decoder's");
    expect(() => model.run('the cat sat', { ablate: [{ layer: 0, head: 0, stack: 'cross' }] })).toThrow("ablate[0].stack is 'cross', but this model has one stack of layers");
    expect(model.run('the cat sat', { ablate: [{ layer: 0, head: 0, stack: 'encoder' }] }).ablated).toEqual([{ layer: 0, head: 0 }]);
    expect(model.encoderDecoder).toBe(false);
    expect(model.numDecoderLayers).toBe(0);
    model.dispose();
  });
});
