// engine.loadModel(id, { hubUrl }) in Node against the fake Hub (tests/hub/fake-hub.js), which
// answers the Hub's URL layout, redirects to a CDN path, and honours Range: every architecture
// loads and computes exactly what the same folder computes, with its tokenizer in either layout; the header is read by range requests
// before the weights; progress and abort; and each failure a user can meet gets its own message.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { startFakeHub } from '../../hub/fake-hub.js';
import { checkpointRepo } from '../helpers.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const SEQ2SEQ = fileURLToPath(new URL('../../fixtures/seq2seq/', import.meta.url));
// Every fixture: each architecture, Llama, Qwen, Mistral, Gemma 3 and Pythia among them.
const CHECKPOINTS = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
const SENTENCE = 'The children were walking slowly to the old river.';
const file = (checkpoint, name) => readFileSync(`${DIR}${checkpoint}/${name}`);

let engine, hub;
beforeAll(async () => {
  const config = JSON.parse(file('bert-legacy', 'config.json'));
  const repos = Object.fromEntries(CHECKPOINTS.flatMap((c) => [[`multihead-test/${c}`, { folder: `${DIR}${c}` }],
    [`multihead-test/${c}-older-tokenizer`, checkpointRepo(`${DIR}${c}/`, 'older')]]));
  Object.assign(repos, {
    'org/gated': { status: 401 },
    // Pythia publishes its training checkpoints as revisions step0 … step143000.
    'EleutherAI/pythia-70m': { folder: `${DIR}pythia`, revisions: ['step1000', 'step143000'] },
    'org/bin-only': { files: { 'config.json': file('bert-legacy', 'config.json'), 'tokenizer.json': file('bert-legacy', 'tokenizer.json'), 'pytorch_model.bin': 'x' } },
    'org/no-tokenizer': { files: { 'config.json': file('bert-legacy', 'config.json'), 'vocab.txt': 'x', 'model.safetensors': file('bert-legacy', 'model.safetensors') } },
    'org/xlnet': { files: { 'config.json': JSON.stringify({ ...config, model_type: 'xlnet' }), 'tokenizer.json': file('bert-legacy', 'tokenizer.json'), 'model.safetensors': file('bert-legacy', 'model.safetensors') } },
    // The encoder–decoders under their real ids.
    'google-t5/t5-small': { folder: `${SEQ2SEQ}t5-small` },
    'google/flan-t5-small': { folder: `${SEQ2SEQ}flan-t5` },
    'facebook/bart-base': { folder: `${SEQ2SEQ}bart` },
    'Helsinki-NLP/opus-mt-en-de': { folder: `${SEQ2SEQ}marian` },
    // An older T5 copy: spiece.model and no tokenizer.json.
    'org/t5-spiece': { files: Object.fromEntries(['config.json', 'spiece.model', 'tokenizer_config.json', 'model.safetensors'].map((f) => [f, readFileSync(`${SEQ2SEQ}t5-small/${f}`)])) },
    'org/huge': { files: { 'config.json': JSON.stringify({ ...config, num_hidden_layers: 64, hidden_size: 4096, intermediate_size: 16384 }), 'tokenizer.json': file('bert-legacy', 'tokenizer.json'), 'model.safetensors': file('bert-legacy', 'model.safetensors') } },
  });
  [engine, hub] = await Promise.all([loadEngine(), startFakeHub({ repos })]);
});
afterAll(async () => {
  engine.dispose();
  await hub.close();
});

const load = (id, options = {}) => engine.loadModel(id, { hubUrl: hub.url, ...options });

test.each(CHECKPOINTS.flatMap((c) => [c, `${c}-older-tokenizer`]))('multihead-test/%s from the Hub computes exactly what its folder computes', async (repo) => {
  const checkpoint = repo.replace(/-older-tokenizer$/, '');
  const [fromHub, fromFolder] = await Promise.all([load(`multihead-test/${repo}`), engine.loadModel(`${DIR}${checkpoint}`)]);
  const a = fromHub.run(SENTENCE), b = fromFolder.run(SENTENCE);
  expect(Array.from(a.ids)).toEqual(Array.from(b.ids));
  for (let l = 0; l < a.layers; l++) expect(a.attention(l, 0)).toEqual(b.attention(l, 0));
  expect(a.hidden).toEqual(b.hidden);
  fromHub.dispose();
  fromFolder.dispose();
});

test('generation_config.json and tokenizer_config.json come with a model that has them, and are not asked for when the Hub API does not list them', async () => {
  hub.requests.length = 0;
  const chat = await load('multihead-test/qwen2');
  expect(chat.eosTokenIds).toEqual([458, 456]);
  expect(chat.chatTemplate).toBe(JSON.parse(file('qwen2', 'tokenizer_config.json')).chat_template);
  chat.dispose();
  const asked = (name) => hub.requests.filter((r) => r.server === 'hub' && r.path.endsWith(`/resolve/main/${name}`)).map((r) => r.path);
  expect(asked('generation_config.json')).toEqual(['/multihead-test/qwen2/resolve/main/generation_config.json']);
  hub.requests.length = 0;
  const plain = await load('multihead-test/llama-smol');
  expect([plain.chatTemplate, plain.eosTokenIds]).toEqual([null, [456]]); // config.json's eos_token_id
  plain.dispose();
  expect([...asked('generation_config.json'), ...asked('tokenizer_config.json')]).toEqual([]);
});

test('a Pythia training checkpoint loads by its revision, and every file comes from that revision', async () => {
  hub.requests.length = 0;
  const model = await load('EleutherAI/pythia-70m', { revision: 'step1000' });
  expect(model.architecture).toBe('gpt_neox');
  expect(model.architectureName).toBe('GPT-NeoX');
  expect(model.run(SENTENCE).predictions(3, 1)).toHaveLength(1);
  model.dispose();
  const files = hub.requests.filter((r) => r.server === 'hub' && r.path.includes('/resolve/'));
  expect(files.length).toBeGreaterThanOrEqual(3);
  for (const r of files) expect(r.path).toContain('/EleutherAI/pythia-70m/resolve/step1000/');
  await expect(load('EleutherAI/pythia-70m', { revision: 'step999' })).rejects.toThrow("the model 'EleutherAI/pythia-70m' has no revision 'step999'");
});

test('the safetensors header is read by two range requests, and the whole file only after them', async () => {
  hub.requests.length = 0;
  const model = await load('multihead-test/gpt2-new');
  model.dispose();
  const weights = hub.requests.filter((r) => r.server === 'cdn' && r.path.endsWith('/model.safetensors'));
  const headerLength = file('gpt2-new', 'model.safetensors').readBigUInt64LE(0);
  expect(weights.map((r) => r.range)).toEqual(['bytes=0-7', `bytes=8-${8n + headerLength - 1n}`, null]);
});

test('progress reports every file, and model.safetensors rises to its size', async () => {
  const events = [];
  const model = await load('multihead-test/bert-legacy', { onProgress: (p) => events.push(p) });
  model.dispose();
  const size = file('bert-legacy', 'model.safetensors').length;
  expect(new Set(events.map((e) => e.file))).toEqual(new Set(['config.json', 'tokenizer.json', 'model.safetensors']));
  const weights = events.filter((e) => e.file === 'model.safetensors');
  expect(weights.at(-1)).toEqual({ file: 'model.safetensors', loaded: size, total: size });
  weights.forEach((e, i) => i && expect(e.loaded).toBeGreaterThanOrEqual(weights[i - 1].loaded));
});

test('aborting while the weights download rejects with an AbortError and leaves nothing allocated', async () => {
  const slow = await startFakeHub({
    repos: { 'multihead-test/bert-12x12': { folder: `${DIR}bert-12x12` } },
    throttle: { bytesPerSecond: 100000, chunkSize: 4096 },
  });
  try {
    const before = engine.memory().usedBytes;
    const controller = new AbortController();
    const loading = engine.loadModel('multihead-test/bert-12x12', {
      hubUrl: slow.url, signal: controller.signal,
      onProgress: ({ file: name, loaded }) => name === 'model.safetensors' && loaded > 50000 && controller.abort(),
    });
    await expect(loading).rejects.toMatchObject({ name: 'AbortError' });
    expect(engine.memory().usedBytes).toBe(before);
    const sizes = slow.requests.filter((r) => r.server === 'cdn' && r.range === null && r.path.endsWith('model.safetensors'));
    expect(sizes.length).toBe(1); // the download started, and was stopped
  } finally {
    await slow.close();
  }
});

test('a model above the memory limit is refused before any of its weights is fetched', async () => {
  hub.requests.length = 0;
  await expect(load('org/huge')).rejects.toThrow(/config\.json: .*GiB of weights even as bfloat16, above the limit of/);
  expect(hub.requests.some((r) => r.server === 'cdn' && r.path.endsWith('model.safetensors') && r.range === null)).toBe(false);
});

test.each([
  ['multihead-test/nothing', "the Hub has no model 'multihead-test/nothing' (HTTP 404 for config.json at revision 'main'): check the id"],
  ['org/gated', "the model 'org/gated' is gated or private (HTTP 401 for config.json at revision 'main'): multihead can only load public models. If you have access, download its config.json, tokenizer.json and model.safetensors and open them as a local folder, or load an ungated copy of the model by its id"],
  ['org/bin-only', "the model 'org/bin-only' has no model.safetensors at revision 'main', only pytorch_model.bin: multihead reads safetensors weights"],
  ['org/no-tokenizer', "the model 'org/no-tokenizer' has no tokenizer.json at revision 'main' (it has vocab.txt): multihead needs tokenizer.json"],
  ['org/xlnet', 'config.json: model_type "xlnet" is not supported; supported model types are bart, bert, distilbert, gemma3_text, gpt2, gpt_neox, llama, marian, mistral, qwen2, qwen3, roberta, t5'],
  ['org/x/../../etc', '"org/x/../../etc" is not a Hub model id'],
])('%s gets a message that says what is wrong', async (id, message) => {
  await expect(load(id)).rejects.toThrow(message);
});

const SEQ2SEQ_REPOS = { 'google-t5/t5-small': 't5-small', 'google/flan-t5-small': 'flan-t5', 'facebook/bart-base': 'bart', 'Helsinki-NLP/opus-mt-en-de': 'marian', 'org/t5-spiece': 't5-small' };
test.each(Object.keys(SEQ2SEQ_REPOS))('%s from the Hub computes exactly what its folder computes', async (id) => {
  const folder = SEQ2SEQ_REPOS[id];
  const [hubModel, local] = await Promise.all([load(id), engine.loadModel(`${SEQ2SEQ}${folder}`)]);
  expect(hubModel.encoderDecoder).toBe(true);
  const source = `${Object.values(hubModel.taskPrefixes)[0] ?? ''}${SENTENCE}`;
  const [a, b] = [hubModel, local].map((m) => m.run(source, { target: 'Die Kinder gingen zum Fluss.' }));
  expect(Array.from(a.ids)).toEqual(Array.from(b.ids));
  expect(Array.from(a.targetIds)).toEqual(Array.from(b.targetIds));
  expect(a.tokens).toEqual(b.tokens);
  for (let l = 0; l < hubModel.numDecoderLayers; l++) expect(a.crossAttention(l, 0)).toEqual(b.crossAttention(l, 0));
  hubModel.dispose();
  local.dispose();
});

test('engine.architectures is the list the engine reads, each named as a sentence names it', () => {
  const types = engine.architectures.map((a) => a.modelType);
  expect(types.join(', ')).toBe('bart, bert, distilbert, gemma3_text, gpt2, gpt_neox, llama, marian, mistral, qwen2, qwen3, roberta, t5');
  const names = Object.fromEntries(engine.architectures.map((a) => [a.modelType, a.name]));
  expect(names).toMatchObject({ gpt2: 'GPT-2', gemma3_text: 'Gemma 3', t5: 'T5', bart: 'BART', marian: 'Marian' });
  expect(engine.architectures.filter((a) => a.encoderDecoder).map((a) => a.modelType)).toEqual(['bart', 'marian', 't5']);
});

test('a revision that does not exist is named', async () => {
  await expect(load('multihead-test/bert-legacy', { revision: 'v9' })).rejects.toThrow("the model 'multihead-test/bert-legacy' has no revision 'v9'");
});

test('unknown loadModel options are refused, as a typo would otherwise be silent', async () => {
  await expect(engine.loadModel('gpt2', { hubURL: hub.url })).rejects.toThrow('loadModel has no option hubURL');
});
