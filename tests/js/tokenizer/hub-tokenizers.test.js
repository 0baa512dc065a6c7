// tokenizer.json in the older layout the Hub's files for bert-base-uncased, distilbert-base-uncased,
// roberta-base and gpt2 still have (no model "type"; tests/hub/hub-tokenizers.js builds them from
// the real vocabularies), read as the Rust tokenizers library reads it: every text gives the ids
// that the Rust library (npm `tokenizers`, its Node binding) gives, in both layouts; each preset
// loads from the fake Hub by its real id; and what is malformed in either layout is still refused
// with the field named.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { loadTokenizer } from '../../../web/src/tokenizer/tokenizer.js';
import { startFakeHub } from '../../hub/fake-hub.js';
import { presetRepos } from '../../hub/hub-presets.js';
import { HUB_TOKENIZERS } from '../../hub/hub-tokenizers.js';
import { t5Tokenizer } from './builders.js';
import { ALL_TEXTS, expectRustIds, rustIds } from './rust-ids.js';

const CHECKPOINTS = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));


describe('the Hub presets\' tokenizer.json in the older layout', () => {
  test.each(Object.keys(HUB_TOKENIZERS))('%s has no model "type" and gives the Rust library\'s ids for every text', async (id) => {
    const json = HUB_TOKENIZERS[id]();
    expect(json.model.type).toBeUndefined();
    await expect(expectRustIds(json)).resolves.toBe(ALL_TEXTS.length);
  });

  test('bert-base-uncased and gpt2 give the ids of the examples as the Rust library gives them', async () => {
    const bert = await loadTokenizer(HUB_TOKENIZERS['bert-base-uncased']());
    expect(Array.from(bert.encode('Hello world! The quick brown fox.').ids)).toEqual([101, 7592, 2088, 999, 1996, 4248, 2829, 4419, 1012, 102]);
    const gpt2 = await loadTokenizer(HUB_TOKENIZERS.gpt2());
    expect(Array.from(gpt2.encode('Hello world').ids)).toEqual([15496, 995]);
    await expect(rustIds(HUB_TOKENIZERS.gpt2(), 'Hello world')).resolves.toEqual([15496, 995]);
  });

  test('roberta-base\'s <mask> takes the space before it, as the Rust library does', async () => {
    const json = HUB_TOKENIZERS['roberta-base']();
    const roberta = await loadTokenizer(json);
    const { ids, tokens } = roberta.encode('The cat sat on the <mask> near the door.');
    expect(ids[0]).toBe(0);
    expect(ids.at(-1)).toBe(2);
    expect(ids[tokens.indexOf('<mask>')]).toBe(50264);
    expect(tokens[tokens.indexOf('<mask>') - 1]).toBe(' the'); // the space went with the mask
    expect(Array.from(ids)).toEqual(await rustIds(json, 'The cat sat on the <mask> near the door.'));
  });
});

describe('the checkpoint fixtures\' tokenizers, in both layouts', () => {
  const folders = ['bert-legacy', 'bert-plain', 'distilbert', 'roberta', 'gpt2-legacy', 'gpt2-new', 'bert-12x12'];
  const cases = folders.flatMap((folder) => ['tokenizer.json', 'tokenizer.old.json'].map((file) => [folder, file]));
  test.each(cases)('%s/%s gives the Rust library\'s ids', async (folder, file) => {
    const json = JSON.parse(readFileSync(`${CHECKPOINTS}${folder}/${file}`, 'utf8'));
    expect(json.model.type === undefined).toBe(file === 'tokenizer.old.json');
    await expect(expectRustIds(json)).resolves.toBe(ALL_TEXTS.length);
  });
});

describe('Metaspace\'s older add_prefix_space', () => {
  /** A T5-style Unigram with `pre_tokenizer`; no Precompiled normalizer (the Rust binding aborts on a null charsmap). */
  const t5With = (pre_tokenizer) => ({ ...t5Tokenizer(), normalizer: null, pre_tokenizer });

  test('add_prefix_space true reads as the default prepend_scheme "always", as the Rust library reads it', async () => {
    const old = t5With({ type: 'Metaspace', replacement: '▁', add_prefix_space: true });
    const current = t5With({ type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true });
    const ids = async (json) => Array.from((await loadTokenizer(json)).encode('The cat').ids);
    expect(await ids(old)).toEqual(await ids(current));
    await expect(rustIds(old, 'The cat')).resolves.toEqual(await ids(old));
  });

  test.each([[undefined], ['always'], ['first']])('add_prefix_space false with prepend_scheme %s is refused, as the Rust library refuses it', async (scheme) => {
    const json = t5With({ type: 'Metaspace', replacement: '▁', add_prefix_space: false, ...(scheme && { prepend_scheme: scheme }) });
    await expect(rustIds(json, 'The cat')).rejects.toThrow('add_prefix_space does not match declared prepend_scheme');
    await expect(loadTokenizer(json)).rejects.toThrow(`tokenizer.json pre_tokenizer.add_prefix_space is false but its prepend_scheme is ${scheme ? `the string "${scheme}"` : 'nothing'}, not "never"`);
  });

  test('add_prefix_space false with prepend_scheme "never" prepends nothing, as in the Rust library', async () => {
    const json = t5With({ type: 'Metaspace', replacement: '▁', add_prefix_space: false, prepend_scheme: 'never' });
    const ids = Array.from((await loadTokenizer(json)).encode('The cat').ids);
    await expect(rustIds(json, 'The cat')).resolves.toEqual(ids);
  });
});

describe('what the older layout leaves out', () => {
  test('missing parts and added_tokens read as none, as the Rust library reads them', async () => {
    const json = HUB_TOKENIZERS['bert-base-uncased']();
    for (const part of ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder', 'added_tokens']) delete json[part];
    const texts = ['Hello world', 'hello world'];
    await expect(expectRustIds(json, texts)).resolves.toBe(2);
  });

  test('a typeless model is read as the Rust library reads it: WordLevel when WordPiece\'s max_input_chars_per_word is missing', async () => {
    const json = HUB_TOKENIZERS['bert-base-uncased']();
    delete json.model.max_input_chars_per_word;
    const ids = Array.from((await loadTokenizer(json)).encode('playing unaffable').ids);
    expect(ids).toEqual(await rustIds(json, 'playing unaffable'));
    expect(ids.filter((id) => id === 100)).toHaveLength(1); // "unaffable" is no word of the vocabulary: [UNK], not pieces
  });

  test('the caller\'s object is left as it was', async () => {
    const json = HUB_TOKENIZERS.gpt2();
    await loadTokenizer(json);
    expect(json.model.type).toBeUndefined();
    expect(json.pre_tokenizer.use_regex).toBeUndefined();
  });

  test.each([
    ['a model whose fields fit no kind', (j) => { j.model = { vocab: { a: 0 } }; },
      'tokenizer.json model has no "type", and its fields are those of no kind of model: a model without one is read as BPE (vocab and merges), '
      + 'WordPiece (vocab, unk_token, continuing_subword_prefix and max_input_chars_per_word), WordLevel (vocab and unk_token) or Unigram (vocab as [token, score] pairs)'],
    ['a typeless BPE merging a token it lacks', (j) => { j.model.merges[0] = 'Ġ nosuchtoken'; }, 'tokenizer.json model.merges[0] merges "nosuchtoken", which is not in model.vocab'],
    ['a typeless WordPiece whose unk_token is not a word of it', (j) => { j.model.unk_token = '<unk>'; }, 'tokenizer.json model.unk_token "<unk>" is not in model.vocab'],
    ['a typeless WordPiece whose id is a fraction', (j) => { j.model.vocab.the = 1.5; }, 'tokenizer.json model.vocab["the"] must be an id (a whole number from 0 to 4294967295), got number 1.5'],
  ])('%s is refused with the field named', async (_, change, message) => {
    const json = (message.includes('merges') ? HUB_TOKENIZERS.gpt2 : HUB_TOKENIZERS['bert-base-uncased'])();
    change(json);
    await expect(loadTokenizer(json)).rejects.toThrow(message);
  });
});

describe('the presets from the fake Hub, by their real ids', () => {
  let engine, hub;
  const repos = presetRepos();
  beforeAll(async () => {
    [engine, hub] = await Promise.all([loadEngine(), startFakeHub({ repos })]);
  });
  afterAll(async () => {
    engine?.dispose();
    await hub?.close();
  });

  test.each([
    ['bert-base-uncased', 'Hello world! The quick brown fox.', [101, 7592, 2088, 999, 1996, 4248, 2829, 4419, 1012, 102]],
    ['distilbert-base-uncased', 'Hello world! The quick brown fox.', [101, 7592, 2088, 999, 1996, 4248, 2829, 4419, 1012, 102]],
    ['gpt2', 'Hello world', [15496, 995]],
    ['openai-community/gpt2', 'Hello world', [15496, 995]],
    ['roberta-base', 'Hello world', null],
  ])('%s loads and encodes "%s" as the Rust library does', async (id, text, expected) => {
    const model = await engine.loadModel(id, { hubUrl: hub.url });
    try {
      const ids = Array.from(model.run(text).ids);
      const tokenizer = JSON.parse(repos[id].files['tokenizer.json']);
      expect(ids).toEqual(await rustIds(tokenizer, text));
      if (expected) expect(ids).toEqual(expected);
    } finally {
      model.dispose();
    }
  });
});
