// model.generate(): every causal checkpoint fixture writes, greedily, the tokens its float64
// PyTorch reference writes after the same sentence (greedy.json, from tools/make_checkpoints.py,
// each token chosen again from a whole run), in both builds. The result's attention, assembled
// from the prefill and each step's row, is what a whole run over the same layer inputs computes,
// and each step hands over its row. Sampling is seeded, the same at one and two threads. Then
// how it ends: aborted, broken off, the model disposed, at the model's length, with no
// end-of-sequence id, a bad option; each ends cleanly and leaves the engine working and its
// memory as before.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, maxAbsDiff } from '../helpers.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const CAUSAL = readdirSync(DIR).filter((name) => existsSync(`${DIR}${name}/greedy.json`)).sort();
const SENTENCE = 'The children were walking slowly to the old river.';

const collect = async (writing) => {
  const steps = [];
  for await (const step of writing) steps.push(step);
  return steps;
};

describe.each(BUILDS)('%s build', (_, buildOptions) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(buildOptions); });
  afterAll(() => engine?.dispose());

  test('the causal fixtures are the nine of the seven causal architectures', () => {
    expect(CAUSAL).toEqual(['gemma3', 'gemma3-v5', 'gpt2-legacy', 'gpt2-new', 'llama-smol', 'llama3-scaled', 'mistral', 'pythia', 'qwen2', 'qwen3']);
  });

  test.each(CAUSAL)('%s writes greedily what its float64 reference writes, and its attention is a whole run\'s', async (name) => {
    const expected = JSON.parse(readFileSync(`${DIR}${name}/greedy.json`, 'utf8'));
    const model = await engine.loadModel(`${DIR}${name}/`);
    try {
      const writing = model.generate(SENTENCE, { maxNewTokens: 32 });
      const steps = await collect(writing);
      const result = await writing.result;
      expect(Array.from(result.ids.slice(0, expected.prompt.length))).toEqual(expected.prompt);
      expect(steps.map((s) => s.id)).toEqual(expected.output);
      expect(writing.stopReason).toBe(model.eosTokenIds.includes(expected.output.at(-1)) ? 'eos' : 'maxNewTokens');
      const n = result.ids.length;
      expect(n).toBe(expected.prompt.length + expected.output.length);
      // The prompt's rows are run()'s; every row is what the layer computes over the written inputs.
      const prompt = model.run(SENTENCE);
      const p = prompt.ids.length;
      for (let layer = 0; layer < model.numLayers; layer++) {
        const whole = result.trace(layer);
        for (let head = 0; head < model.numHeads; head++) {
          const assembled = result.attention(layer, head);
          expect(maxAbsDiff(assembled, whole.weights(head))).toBeLessThan(1e-5);
          const first = prompt.attention(layer, head);
          for (let r = 0; r < p; r++) expect(maxAbsDiff(assembled.subarray(r * n, r * n + p), first.subarray(r * p, (r + 1) * p))).toBeLessThan(1e-6);
          for (const step of steps) {
            const row = step.attention(layer, head);
            expect([row.nQueries, row.nKeys]).toEqual([1, step.position + 1]);
            expect(maxAbsDiff(row, assembled.subarray(step.position * n, step.position * n + step.position + 1))).toBe(0);
          }
        }
      }
      // The written ids run again after the prompt give the writing's result: what a link to it shows.
      const again = model.run(SENTENCE, { continuation: result.ids.slice(p) });
      expect(again.tokens).toEqual(result.tokens);
      for (let layer = 0; layer < model.numLayers; layer++) {
        for (let head = 0; head < model.numHeads; head++) expect(maxAbsDiff(again.attention(layer, head), result.attention(layer, head))).toBeLessThan(1e-5);
      }
      expect(writing.prefillMs).toBeGreaterThan(0);
      // Each step's probability is the model's, at the position before it.
      const last = steps.at(-1);
      const predicted = result.predictions(last.position - 1, 5);
      expect(predicted[0].id).toBe(last.id);
      expect(last.probability).toBeCloseTo(predicted[0].probability, 5);
      expect(last.alternatives.map((a) => a.id)).toEqual(predicted.map((a) => a.id));
    } finally {
      model.dispose();
    }
  }, 60000);

  test('the same seed writes the same tokens, another seed others; top-k 1 is greedy', async () => {
    const model = await engine.loadModel(`${DIR}llama-smol/`);
    const ids = async (options) => (await collect(model.generate(SENTENCE, { maxNewTokens: 16, ...options }))).map((s) => s.id);
    // Hot enough that this random model's favourite token (95% at temperature 1) is not the only one drawn.
    const sampled = await ids({ temperature: 5, seed: 7 });
    expect(new Set(sampled).size).toBeGreaterThan(1);
    expect(await ids({ temperature: 5, seed: 7 })).toEqual(sampled);
    expect(await ids({ temperature: 5, seed: 8 })).not.toEqual(sampled);
    expect(await ids({ temperature: 5, topK: 1, seed: 9 })).toEqual(await ids({}));
    model.dispose();
  }, 60000);

  // With 'mean', a step has one row, so a mean over its rows was the head's own output and the head
  // stayed on; the running mean the caches keep makes every step the run's row.
  test.each(['zero', 'mean'])('switched-off heads (%s) apply to every step as a run of the text applies them', async (ablation) => {
    const model = await engine.loadModel(`${DIR}gpt2-new/`);
    const ablate = [{ layer: 0, head: 1 }, { layer: 1, head: 3 }];
    const writing = model.generate(SENTENCE, { maxNewTokens: 8, ablate, ablation });
    const steps = await collect(writing);
    const result = await writing.result;
    expect(result.ablated).toEqual(ablate);
    // The ablated layer-1 input of the written text is what run() computes with the same heads off.
    const run = model.run(result.tokens.join(''), { ablate, ablation });
    expect(Array.from(run.ids)).toEqual(Array.from(result.ids));
    expect(maxAbsDiff(run.layerInput(1), result.layerInput(1))).toBeLessThan(1e-5);
    expect(steps).toHaveLength(8);
    // Each step's probability, from the KV cache, is the run's at the position before it.
    for (const step of steps) {
      const logits = run.logits(step.position - 1);
      const max = Math.max(...logits);
      const total = logits.reduce((sum, x) => sum + Math.exp(x - max), 0);
      expect(Math.abs(step.probability - Math.exp(logits[step.id] - max) / total)).toBeLessThan(1e-5);
    }
    model.dispose();
  }, 60000);
});

describe('how a writing ends', () => {
  let engine, model;
  beforeAll(async () => {
    engine = await loadEngine();
    model = await engine.loadModel(`${DIR}llama-smol/`);
  });
  afterAll(() => engine?.dispose());

  test('two threads write what one writes, with the same seed', async () => {
    const two = await loadEngine({ threads: 2 });
    const other = await two.loadModel(`${DIR}llama-smol/`);
    const options = { maxNewTokens: 12, temperature: 1, topP: 0.9, seed: 3 };
    const a = (await collect(model.generate(SENTENCE, options))).map((s) => s.id);
    const b = (await collect(other.generate(SENTENCE, options))).map((s) => s.id);
    expect(b).toEqual(a);
    two.dispose();
  }, 60000);

  test('an abort stops it between steps: the iteration throws the reason, the result keeps what was written, nothing leaks', async () => {
    const before = engine.memory().usedBytes;
    const controller = new AbortController();
    const writing = model.generate(SENTENCE, { maxNewTokens: 30, signal: controller.signal });
    const seen = [];
    await expect((async () => {
      for await (const step of writing) {
        seen.push(step.id);
        if (seen.length === 3) controller.abort();
      }
    })()).rejects.toThrow(/abort/i);
    expect(writing.stopReason).toBe('aborted');
    const result = await writing.result;
    expect(Array.from(result.ids.slice(-3))).toEqual(seen);
    expect(engine.memory().usedBytes).toBe(before);
    expect(model.run('still working').ids.length).toBeGreaterThan(0);
  });

  test('breaking out of the loop ends it, and the result keeps the steps taken', async () => {
    const writing = model.generate(SENTENCE, { maxNewTokens: 30 });
    for await (const step of writing) if (step.index === 1) break;
    expect(writing.stopReason).toBe('returned');
    expect((await writing.result).ids.length).toBe(model.run(SENTENCE).ids.length + 2);
  });

  test('a prompt at the model\'s length writes nothing and gives the prompt; past it is refused', async () => {
    const words = (count) => Array.from({ length: count }, () => 'the').join(' ');
    let count = 1;
    while (model.tokenize(words(count + 1)).ids.length <= model.maxTokens) count++;
    const writing = model.generate(words(count), { maxNewTokens: 5 });
    expect(await collect(writing)).toEqual([]);
    expect(writing.stopReason).toBe('length');
    expect((await writing.result).ids.length).toBe(model.maxTokens);
    expect(() => model.generate(words(count + 1))).toThrow(/more than the model's 64/);
  });

  test('maxNewTokens past the model\'s length stops at its length', async () => {
    const writing = model.generate(SENTENCE, { maxNewTokens: 500 });
    const steps = await collect(writing);
    expect(['length', 'eos']).toContain(writing.stopReason);
    expect((await writing.result).ids.length).toBeLessThanOrEqual(model.maxTokens);
    if (writing.stopReason === 'length') expect(steps.at(-1).position).toBe(model.maxTokens - 1);
  });

  test('a model whose config has no eos_token_id writes to maxNewTokens; a stop id or string ends it', async () => {
    const config = JSON.parse(readFileSync(`${DIR}mistral/config.json`, 'utf8'));
    const greedy = JSON.parse(readFileSync(`${DIR}mistral/greedy.json`, 'utf8'));
    delete config.eos_token_id;
    const files = { config: JSON.stringify(config), tokenizer: new URL(`file://${DIR}mistral/tokenizer.json`), weights: new URL(`file://${DIR}mistral/model.safetensors`) };
    const plain = await engine.loadModel(files);
    expect(plain.eosTokenIds).toEqual([]);
    const writing = plain.generate(SENTENCE, { maxNewTokens: 6 });
    expect((await collect(writing)).map((s) => s.id)).toEqual(greedy.output.slice(0, 6));
    expect(writing.stopReason).toBe('maxNewTokens');
    // The first token written that differs from the first: a stop id there ends it after it.
    const k = greedy.output.findIndex((id) => id !== greedy.output[0]);
    const byId = plain.generate(SENTENCE, { maxNewTokens: 30, stop: [greedy.output[k]] });
    expect(await collect(byId)).toHaveLength(k + 1);
    expect(byId.stopReason).toBe('stop');
    const byText = plain.generate(SENTENCE, { maxNewTokens: 30, stop: ['no such text', plain.token(greedy.output[0]).text] });
    expect(await collect(byText)).toHaveLength(1);
    expect(byText.stopReason).toBe('stop');
    plain.dispose();
  });

  test('bad options are refused by name; a masked LM does not write', async () => {
    expect(() => model.generate(SENTENCE, { stop: '' })).toThrow(/stop\[0\] is the empty string/);
    expect(() => model.generate(SENTENCE, { temperature: -1 })).toThrow(/temperature must be a number from 0/);
    expect(() => model.generate(SENTENCE, { topP: 0 })).toThrow(/topP/);
    expect(() => model.generate(SENTENCE, { maxNewTokens: 0 })).toThrow(/maxNewTokens/);
    expect(() => model.generate(SENTENCE, { seed: -1 })).toThrow(/seed/);
    expect(() => model.generate(SENTENCE, { sample: true })).toThrow(/generate has no option sample/);
    expect(() => model.generate(SENTENCE, { ablation: 'half' })).toThrow(/ablation must be 'zero' or 'mean'/);
    expect(() => model.generate(SENTENCE, { ablate: [{ layer: 9, head: 0 }] })).toThrow(/ablate\[0\]\.layer/);
    expect(() => model.generate('   ')).toThrow(/prompt is empty/);
    expect(() => model.generate(42)).toThrow(TypeError);
    // A continuation is ids of the vocabulary, and fits with its prompt.
    expect(() => model.run(SENTENCE, { continuation: [1, -1] })).toThrow(/continuation\[1\]/);
    expect(() => model.run(SENTENCE, { continuation: 'abc' })).toThrow(/continuation must be an Array or Int32Array/);
    expect(() => model.run(SENTENCE, { continuation: new Array(model.maxTokens).fill(1) })).toThrow(/more than/);
    const bert = await engine.loadModel(`${DIR}bert-legacy/`);
    expect(() => bert.generate(SENTENCE)).toThrow(/masked language model/);
    bert.dispose();
  });

  test('a pass that overflows float32 ends the writing with an error naming the step, and the engine keeps working', async () => {
    // gpt2-legacy with its final LayerNorm's gain at 3e38: its output, and so the logits, cannot be finite.
    const bytes = new Uint8Array(readFileSync(`${DIR}gpt2-legacy/model.safetensors`));
    const view = new DataView(bytes.buffer);
    const headerLength = Number(view.getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
    const [start, end] = header['ln_f.weight'].data_offsets;
    for (let at = 8 + headerLength + start; at < 8 + headerLength + end; at += 4) view.setFloat32(at, 3e38, true);
    const before = engine.memory().usedBytes;
    const broken = await engine.loadModel({ config: new URL(`file://${DIR}gpt2-legacy/config.json`), tokenizer: new URL(`file://${DIR}gpt2-legacy/tokenizer.json`), weights: bytes });
    const writing = broken.generate(SENTENCE, { maxNewTokens: 4 });
    await expect(collect(writing)).rejects.toThrow(/ln_f overflowed float32/);
    expect(writing.stopReason).toBe('error');
    await expect(writing.result).rejects.toThrow(/ln_f overflowed float32/); // the prompt itself failed: no result
    broken.dispose();
    expect(engine.memory().usedBytes).toBe(before);
    expect((await collect(model.generate(SENTENCE, { maxNewTokens: 2 }))).length).toBe(2);
  });

  test('disposing the model while it writes ends the writing with an error, and frees its caches', async () => {
    const own = await engine.loadModel(`${DIR}llama-smol/`);
    const before = engine.memory().usedBytes;
    const writing = own.generate(SENTENCE, { maxNewTokens: 30 });
    const iterator = writing[Symbol.asyncIterator]();
    await iterator.next();
    own.dispose();
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    await expect(writing.result).rejects.toThrow(/disposed while it was writing/);
    expect(engine.memory().usedBytes).toBeLessThan(before);
    expect(model.run('still working').ids.length).toBeGreaterThan(0);
  });
});

describe('chats, through the model\'s template (tokenizer_config.json) and its end-of-sequence ids (generation_config.json)', () => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(); });
  afterAll(() => engine?.dispose());
  const HELLO = [{ role: 'user', content: 'Hello there.' }];
  const count = (list, token) => list.filter((t) => t === token).length;

  test('ChatML (qwen2): the default system message goes in, each turn is marked, and writing stops at <|im_end|> or <|endoftext|>', async () => {
    const model = await engine.loadModel(`${DIR}qwen2/`);
    expect(model.chatTemplate).toContain('<|im_start|>');
    expect(model.eosTokenIds).toEqual([458, 456]); // generation_config.json's, not config.json's one id
    const writing = model.generate({ messages: HELLO }, { maxNewTokens: 3 });
    await collect(writing);
    const { tokens } = await writing.result;
    const prompt = tokens.slice(0, tokens.length - 3).join('');
    expect(prompt).toBe('<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' +
      '<|im_start|>user\nHello there.<|im_end|>\n<|im_start|>assistant\n');
    expect(count(tokens, '<|im_start|>')).toBe(3);
    // run() renders a chat as generate() does.
    expect(model.run({ messages: HELLO }).tokens.join('')).toBe(prompt);
    const own = model.generate({ messages: [{ role: 'system', content: 'Be brief.' }, ...HELLO] }, { maxNewTokens: 1 });
    await collect(own);
    expect((await own.result).tokens.join('')).not.toContain('Alibaba'); // a system message of its own replaces the default
    model.dispose();
  });

  test('a template that writes the BOS itself (llama3-scaled, gemma3) gives one BOS, not the tokenizer\'s second', async () => {
    for (const [name, bos] of [['llama3-scaled', '<|begin_of_text|>'], ['gemma3', '<bos>']]) {
      const model = await engine.loadModel(`${DIR}${name}/`);
      const writing = model.generate({ messages: HELLO }, { maxNewTokens: 2 });
      await collect(writing);
      const { tokens } = await writing.result;
      expect([tokens[0], count(tokens, bos)]).toEqual([bos, 1]);
      // The same text run as plain text gets the tokenizer's BOS as well: the double BOS avoided.
      expect(count(model.run(tokens.slice(0, -2).join('')).tokens, bos)).toBe(2);
      model.dispose();
    }
  });

  test('no template, a template that cannot be read or fails, and bad messages are refused by name', async () => {
    const plain = await engine.loadModel(`${DIR}llama-smol/`);
    expect(plain.chatTemplate).toBeNull();
    expect(() => plain.generate({ messages: HELLO })).toThrow(/has no chat template/);
    plain.dispose();
    const withTemplate = async (chatTemplate) => engine.loadModel({
      config: new URL(`file://${DIR}qwen2/config.json`), tokenizer: new URL(`file://${DIR}qwen2/tokenizer.json`),
      weights: new URL(`file://${DIR}qwen2/model.safetensors`), tokenizerConfig: JSON.stringify({ chat_template: chatTemplate }),
    });
    const failing = await withTemplate("{{ raise_exception('system messages are not supported') }}");
    expect(() => failing.generate({ messages: HELLO })).toThrow(/chat template failed to render these messages: .*system messages are not supported/);
    failing.dispose();
    const broken = await withTemplate('{% for message in %}');
    expect(() => broken.generate({ messages: HELLO })).toThrow(/chat template cannot be read/);
    expect(() => broken.generate({ messages: [] })).toThrow(/messages must be an Array of 1 to 1000/);
    expect(() => broken.generate({ messages: [{ role: 'user' }] })).toThrow(/messages\[0\] must be \{ role: string, content: string \}/);
    broken.dispose();
    const model = await engine.loadModel(`${DIR}qwen2/`);
    expect(model.run('still working').ids.length).toBeGreaterThan(0);
    model.dispose();
  });
});
