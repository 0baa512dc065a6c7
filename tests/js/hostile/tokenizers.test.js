// Hostile tokenizer.json files (issue 11, defects 4, 5 and 7), loaded as a user would, with the
// default model's config and weights, on both builds:
// - defect 5: ids that the library would pass on changed (2³²+6, 1.5, "7", ≥ vocab_size, an added
//   token or a post-processor disagreeing with the vocabulary) are refused at load, by field, and
//   missing or malformed fields get a message naming them instead of the library's TypeError;
// - defect 4: regexes that can backtrack for ever, or for a time growing as a power of the text's
//   length, are refused at load, in every place the library compiles one, while the patterns of
//   real tokenizers still load;
// - defect 7: labels are the text as typed, for decomposed (NFD) text, word pieces and byte-level
//   BPE, with the library's ids unchanged;
// - a soak: 1,000 refused loads leave the WASM heap as it was.
// Every test but those marked "still" fails on the code before these checks.
import { loadEngine } from '../../../web/src/index.js';
import { HOSTILE_BUILDS, randomValues } from '../helpers.js';
import { TINY, safetensorsBytes, tinyConfig, tinyTensors } from '../tiny-model.js';
import { bertUncasedTokenizer, defaultModelFiles, gpt2Tokenizer, llamaTokenizer, robertaTokenizer, t5Tokenizer, vocabSizeOf } from '../tokenizer/builders.js';

const FILES = defaultModelFiles();
const TOKENIZER = JSON.stringify(FILES.tokenizer);
const SPLIT = 'pre_tokenizer.pretokenizers[1]'; // the default tokenizer's Split pre-tokenizer

/** The default model's files with a copy of its tokenizer.json changed by `change`. */
function withTokenizer(change) {
  const tokenizer = JSON.parse(TOKENIZER);
  change(tokenizer);
  return { ...FILES, tokenizer };
}

/** A tiny random BERT whose vocabulary fits `tokenizer`, to load tokenizers of other layouts. */
function tinyModelFor(tokenizer) {
  const vocabSize = vocabSizeOf(tokenizer);
  const tensors = tinyTensors();
  tensors['embeddings.word_embeddings.weight'] = { shape: [vocabSize, TINY.d], values: randomValues(vocabSize * TINY.d, 7) };
  tensors['embeddings.position_embeddings.weight'] = { shape: [128, TINY.d], values: randomValues(128 * TINY.d, 8, 0.5) };
  return { config: tinyConfig({ vocab_size: vocabSize, max_position_embeddings: 128 }), tokenizer, weights: safetensorsBytes(tensors) };
}

describe.each(HOSTILE_BUILDS)('the %s build', (build, options) => {
  let engine, model;
  beforeAll(async () => {
    engine = await loadEngine(options);
    model = await engine.loadModel(FILES);
  });
  afterAll(() => engine.dispose());

  describe('defect 5: ids are checked against the model at load', () => {
    test.each([
      ['2³²+6, which an Int32Array makes 6', 2 ** 32 + 6, 'tokenizer.json model.vocab["cat"] must be an id (a whole number from 0 to 4294967295), got number 4294967302'],
      ['vocab_size itself, which failed only when a sentence used it', 6000, 'tokenizer.json model.vocab["cat"] is 6000, outside config.json\'s vocab_size of 6000 (ids 0 to 5999)'],
      ['1.5, which an Int32Array makes 1', 1.5, 'tokenizer.json model.vocab["cat"] must be an id (a whole number from 0 to 4294967295), got number 1.5'],
      ['the string "7", which an Int32Array makes 7', '7', 'tokenizer.json model.vocab["cat"] must be an id (a whole number from 0 to 4294967295), got the string "7"'],
      ['-1', -1, 'tokenizer.json model.vocab["cat"] must be an id (a whole number from 0 to 4294967295), got number -1'],
      ['null', null, 'tokenizer.json model.vocab["cat"] must be an id (a whole number from 0 to 4294967295), got null'],
    ])('a vocabulary id of %s is refused, naming the token', async (_, id, message) => {
      await expect(engine.loadModel(withTokenizer((t) => { t.model.vocab.cat = id; }))).rejects.toThrow(message);
    });

    // Gemma 3's text models share a tokenizer.json whose added image tokens sit at and past their
    // vocab_size (<image_soft_token> is 262144 of 262144), and transformers loads them: so the model
    // loads, runs every text that does not produce such a token, and names the token in a text that does.
    test('an added token with an id of vocab_size loads; a text producing it is refused naming the token, and the model keeps working', async () => {
      const files = withTokenizer((t) => { t.added_tokens.push({ ...t.added_tokens[4], content: '<image>', id: 6000 }); });
      const model = await engine.loadModel(files);
      expect(() => model.run('the cat <image> sat')).toThrow(
        'the text gives the token "<image>" (id 6000), which this model cannot embed: config.json\'s vocab_size is 6000 (ids 0 to 5999)');
      expect(model.run('the cat sat').ids.length).toBeGreaterThan(2);
      model.dispose();
    });

    // Issue 43: an added token's id of 2³¹ reached the engine as −2³¹ (an Int32Array's wrap), and
    // one of 2³² + 5 as 5, a token the text never had. The Rust library takes ids up to 2³² − 1.
    test('an added token with an id of 2³¹ loads; a text producing it is refused naming it, in run() and in tokenize()', async () => {
      const files = withTokenizer((t) => { t.added_tokens.push({ ...t.added_tokens[4], content: '<far>', id: 2 ** 31 }); });
      const model = await engine.loadModel(files);
      expect(() => model.run('the cat <far>')).toThrow(
        'the text gives the token "<far>" (id 2147483648), which this model cannot embed: config.json\'s vocab_size is 6000 (ids 0 to 5999)');
      expect(() => model.tokenize('the cat <far>')).toThrow(
        'the text gives the token "<far>" (id 2147483648), larger than the ids tokenize() returns can hold (2147483647, an Int32Array\'s largest)');
      expect(model.run('the cat sat').ids.length).toBeGreaterThan(2);
      model.dispose();
      await expect(engine.loadModel(withTokenizer((t) => { t.added_tokens.push({ ...t.added_tokens[4], content: '<far>', id: 2 ** 32 + 5 }); })))
        .rejects.toThrow('tokenizer.json added_tokens[5].id must be an id (a whole number from 0 to 4294967295), got number 4294967301');
    });

    test.each([
      ['an id the vocabulary gives another token', (t) => { t.added_tokens[4].id = 7; },
        'tokenizer.json added_tokens[4] "[MASK]" has id 7, but model.vocab gives "[MASK]" the id 4'],
      ['a new token on an id the vocabulary already uses', (t) => { t.added_tokens.push({ ...t.added_tokens[4], content: '<extra>', id: 5 }); },
        'tokenizer.json added_tokens[5] "<extra>" has id 5, which model.vocab gives to "the"'],
      ['an id of 1.5', (t) => { t.added_tokens[2].id = 1.5; }, 'tokenizer.json added_tokens[2].id must be an id (a whole number from 0 to 4294967295), got number 1.5'],
      ['no content', (t) => { delete t.added_tokens[2].content; }, 'tokenizer.json added_tokens[2].content must be a non-empty string, got nothing'],
      ['special: "yes"', (t) => { t.added_tokens[2].special = 'yes'; }, 'tokenizer.json added_tokens[2].special must be true or false, got the string "yes"'],
      ['a token repeated with another id', (t) => { t.added_tokens.push({ ...t.added_tokens[2], id: 3 }); },
        'tokenizer.json added_tokens[5] "[CLS]" has id 3, but model.vocab gives "[CLS]" the id 2'],
    ])('an added token with %s is refused', async (_, change, message) => {
      await expect(engine.loadModel(withTokenizer(change))).rejects.toThrow(message);
    });

    test('a post-processor whose [CLS] ids differ from the vocabulary\'s is refused (the library would use the vocabulary\'s)', async () => {
      const files = withTokenizer((t) => { t.post_processor.special_tokens['[CLS]'].ids = [7]; });
      await expect(engine.loadModel(files)).rejects.toThrow(
        'tokenizer.json post_processor.special_tokens["[CLS]"] gives "[CLS]" the ids [7], but its id in the vocabulary is 2');
    });

    test('a post-processor token missing from the vocabulary is refused (the library would give it [UNK]\'s id)', async () => {
      const files = withTokenizer((t) => {
        t.post_processor.special_tokens['[BOS]'] = { id: '[BOS]', ids: [5999], tokens: ['[BOS]'] };
        t.post_processor.single[0] = { SpecialToken: { id: '[BOS]', type_id: 0 } };
      });
      await expect(engine.loadModel(files)).rejects.toThrow(
        'tokenizer.json post_processor.special_tokens["[BOS]"] adds the token "[BOS]", which is neither in model.vocab nor in added_tokens');
    });

    test.each([
      ['BertProcessing', ['[CLS]', 2 ** 32 + 2], 'tokenizer.json post_processor.cls[1] must be an id (a whole number from 0 to 4294967295), got number 4294967298'],
      ['BertProcessing', ['[CLS]', 2.5], 'tokenizer.json post_processor.cls[1] must be an id (a whole number from 0 to 4294967295), got number 2.5'],
      ['RobertaProcessing', ['<s>', 0], 'tokenizer.json post_processor.cls adds the token "<s>", which is neither in model.vocab nor in added_tokens'],
    ])('a %s post-processor with cls %j is refused', async (type, cls, message) => {
      const files = withTokenizer((t) => { t.post_processor = { type, cls, sep: ['[SEP]', 3] }; });
      await expect(engine.loadModel(files)).rejects.toThrow(message);
    });

    test.each([
      ['model.type "BPE" with no merges', (t) => { t.model.type = 'BPE'; }, 'tokenizer.json model.merges must be an array of merges, got nothing'],
      ['model.type "Unigram" with a WordPiece vocabulary', (t) => { t.model.type = 'Unigram'; },
        'tokenizer.json model.vocab must be a non-empty array of [token, score] pairs for a Unigram model, got an object (Object)'],
      ['model.vocab null', (t) => { t.model.vocab = null; }, 'tokenizer.json model.vocab must be an object mapping each token to its id, got null'],
      ['added_tokens an object', (t) => { t.added_tokens = { 0: t.added_tokens[0] }; }, 'tokenizer.json added_tokens must be an array of tokens, got an object (Object)'],
      // A missing added_tokens means none, as the Rust library reads it (tests/js/tokenizer/hub-tokenizers.test.js).
      ['added_tokens null', (t) => { t.added_tokens = null; }, 'tokenizer.json added_tokens must be an array of tokens, got null'],
      ['no model', (t) => { delete t.model; }, 'tokenizer.json model must be an object, got nothing'],
      ['model.type "Magic"', (t) => { t.model.type = 'Magic'; }, 'tokenizer.json model.type must be one of "BPE", "Unigram", "WordLevel", "WordPiece", got the string "Magic"'],
      ['an unk_token missing from the vocabulary', (t) => { t.model.unk_token = '<unk>'; }, 'tokenizer.json model.unk_token "<unk>" is not in model.vocab'],
      ['no continuing_subword_prefix', (t) => { delete t.model.continuing_subword_prefix; },
        'tokenizer.json model.continuing_subword_prefix must be a string (BERT\'s is "##"), got nothing'],
      ['a BPE merge of a token not in the vocabulary', (t) => { Object.assign(t.model, { type: 'BPE', merges: [['qqq', 'cat']] }); },
        'tokenizer.json model.merges[0] merges "qqq", which is not in model.vocab'],
      ['a BPE merge making a token not in the vocabulary', (t) => { Object.assign(t.model, { type: 'BPE', merges: ['the cat'], continuing_subword_prefix: null }); },
        'tokenizer.json model.merges[0] makes "thecat", which is not in model.vocab'],
      ['a BPE merge with no space', (t) => { Object.assign(t.model, { type: 'BPE', merges: ['thecat'] }); },
        'tokenizer.json model.merges[0] must be two tokens separated by one space, as model.merges[0] is, got the string "thecat"'],
      ['BPE merges of both formats', (t) => { Object.assign(t.model, { type: 'BPE', merges: ['with out', ['with', 'out']], continuing_subword_prefix: null }); },
        'tokenizer.json model.merges[1] must be two tokens separated by one space, as model.merges[0] is, got an Array of length 2'],
      ['a normalizer Sequence whose normalizers are not an array', (t) => { t.normalizer.normalizers = { type: 'NFC' }; },
        'tokenizer.json normalizer.normalizers must be an array, got an object (Object)'],
      ['a Split pre-tokenizer with no pattern', (t) => { delete t.pre_tokenizer.pretokenizers[1].pattern; },
        `tokenizer.json ${SPLIT}.pattern must be { "Regex": "…" } or { "String": "…" }, got nothing`],
    ])('%s gets a message naming the field', async (_, change, message) => {
      await expect(engine.loadModel(withTokenizer(change))).rejects.toThrow(message);
    });

    test.each([
      ['a vocabulary that is an object', (t) => { t.model.vocab = { a: 0 }; }, 'tokenizer.json model.vocab must be a non-empty array of [token, score] pairs for a Unigram model, got an object (Object)'],
      ['an entry that is not a pair', (t) => { t.model.vocab[3] = '▁'; }, 'tokenizer.json model.vocab[3] must be a [token, score] pair, got the string "▁"'],
      ['a score that is not a number', (t) => { t.model.vocab[3] = ['▁', '-2']; }, 'tokenizer.json model.vocab[3][1] must be a finite number (the token\'s score), got the string "-2"'],
      ['no unk_id', (t) => { delete t.model.unk_id; }, 'tokenizer.json model.unk_id must be an index into model.vocab (0 to '],
    ])('a Unigram model with %s gets a message naming the field', async (_, change, message) => {
      const tokenizer = t5Tokenizer();
      change(tokenizer);
      await expect(engine.loadModel(tinyModelFor(tokenizer))).rejects.toThrow(message);
    });

    test('a Unigram vocabulary longer than vocab_size is refused', async () => {
      const files = tinyModelFor(t5Tokenizer());
      files.tokenizer.model.vocab.push(['▁extra', -20]);
      const size = files.config.vocab_size;
      await expect(engine.loadModel(files)).rejects.toThrow(
        `tokenizer.json model.vocab has ${size + 1} tokens, so its ids go up to ${size}, outside config.json's vocab_size of ${size} (ids 0 to ${size - 1})`);
    });

    test('a WordLevel tokenizer gives an unknown word the id of [UNK], not 0', async () => {
      const files = withTokenizer((t) => {
        t.model = { type: 'WordLevel', vocab: t.model.vocab, unk_token: '[UNK]' };
      });
      const wordLevel = await engine.loadModel(files);
      const r = wordLevel.run('the zebra sat');
      expect(Array.from(r.ids)).toEqual([2, 5, 1, 1076, 3]);
      expect(r.tokens).toEqual(['[CLS]', 'the', 'zebra', 'sat', '[SEP]']);
      expect(r.unknown).toEqual([false, false, true, false, false]);
      wordLevel.dispose();
    });

    test.each([
      ['GPT-2 ("a b" merges, ByteLevel)', gpt2Tokenizer],
      ['RoBERTa (["a", "b"] merges, RobertaProcessing)', robertaTokenizer],
      ['bert-base-uncased (BertNormalizer, ## pieces)', bertUncasedTokenizer],
      ['Llama 2 (Prepend, Replace, byte fallback)', llamaTokenizer],
      ['T5 (Unigram, Precompiled, Metaspace)', t5Tokenizer],
    ])('still loads a tokenizer in the layout of %s, and labels its tokens with the text', async (_, make) => {
      const loaded = await engine.loadModel(tinyModelFor(make()));
      const r = loaded.run('The cat sat on the mat.');
      const added = ['[CLS]', '[SEP]', '<s>', '</s>', 'Ġ', '▁']; // the post-processor's, and an inserted prefix space
      expect(r.tokens.filter((t) => !added.includes(t)).join('').replace(/ /g, '')).toBe('Thecatsatonthemat.');
      expect(Math.max(...r.ids)).toBeLessThan(loaded.vocabSize);
      loaded.dispose();
    });
  });

  describe('defect 4: regexes that can backtrack for ever are refused at load', () => {
    const refused = (fragment, why) => `is refused: ${fragment} ${why}, which can take exponential time to match some text`;
    const NESTED = 'repeats a group that holds a quantifier';
    const OVERLAP = 'repeats alternatives that may start with the same character';

    test('a Split pre-tokenizer of (a+)+$ is refused, naming the field and the pattern', async () => {
      const files = withTokenizer((t) => { t.pre_tokenizer.pretokenizers[1].pattern = { Regex: '(a+)+$' }; });
      await expect(engine.loadModel(files)).rejects.toThrow(
        `tokenizer.json ${SPLIT}.pattern.Regex "(a+)+$" is refused: (a+)+ repeats a group that holds a quantifier, which can take exponential time to match some text`);
    });

    test.each([
      ['the Split pre-tokenizer in a Sequence', (t, regex) => { t.pre_tokenizer.pretokenizers[1].pattern = { Regex: regex }; }, SPLIT],
      ['a Split pre-tokenizer on its own', (t, regex) => { t.pre_tokenizer = { type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false }; }, 'pre_tokenizer'],
      ['a Replace pre-tokenizer', (t, regex) => { t.pre_tokenizer.pretokenizers.push({ type: 'Replace', pattern: { Regex: regex }, content: ' ' }); }, 'pre_tokenizer.pretokenizers[2]'],
      ['a Replace normalizer in a Sequence', (t, regex) => { t.normalizer.normalizers.push({ type: 'Replace', pattern: { Regex: regex }, content: '' }); }, 'normalizer.normalizers[2]'],
      ['a Replace normalizer on its own', (t, regex) => { t.normalizer = { type: 'Replace', pattern: { Regex: regex }, content: '' }; }, 'normalizer'],
      ['a Replace decoder in a Sequence', (t, regex) => { t.decoder = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { Regex: regex }, content: '' }] }; }, 'decoder.decoders[0]'],
    ])('in %s, a nested quantifier is refused', async (_, place, field) => {
      const files = withTokenizer((t) => { place(t, '(\\w+\\s?)+$'); });
      await expect(engine.loadModel(files)).rejects.toThrow(`tokenizer.json ${field}.pattern.Regex "(\\\\w+\\\\s?)+$" ${refused('(\\w+\\s?)+', NESTED)}`);
    });

    test.each([
      ['(a|ab)+$', '(a|ab)+', OVERLAP],
      ['(?:\\s|\\p{L})+!', '(?:\\s|\\p{L})+', OVERLAP],
      ['(?i:a|A)+$', '(?i:a|A)+', OVERLAP],
      ['\\p{N}{1,3}+$', '\\p{N}{1,3}+', NESTED],
      ['(a?){25}a{25}', '(a?){25}', NESTED],
      ['(.*a){12}', '(.*a){12}', NESTED],
      ['(?:x(?:a|ab))+$', '(?:x(?:a|ab))+', OVERLAP],
      ['(a)\\1+', '\\1', 'is a backreference'],
      ['(?<w>a)\\k<w>', '\\k<w>', 'is a backreference'],
    ])('%s is refused', async (regex, fragment, why) => {
      const files = withTokenizer((t) => { t.pre_tokenizer.pretokenizers[1].pattern = { Regex: regex }; });
      await expect(engine.loadModel(files)).rejects.toThrow(`${JSON.stringify(regex)} is refused: ${fragment} ${why}`);
    });

    test.each([
      ['the pattern of GPT-2', "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"],
      ['the pattern of cl100k and Llama 3', "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
      ['the pattern of o200k', "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
      ['the pattern of BLOOM', ' ?[^(\\s|[.,!?…。，、।۔،])]+'],
      ['the pattern of the default model', '\\p{L}+|\\p{N}+|[^\\p{L}\\p{N}]'],
      ['a pattern with a repeated choice of distinct characters', '(?:ab|c|\\n)+|\\p{L}+'],
      ['repeats of characters that differ, before a failure', '[a-z]+[0-9]+!'],
      ['repeats separated by a character neither takes', '[a-z]+,[a-z]+!| +\\. +$'],
      ['overlapping repeats at the end of the pattern, the last taking all the others take', '[a-z]+[a-z]+[a-z]+[a-z]+|\\s*\\s*\\s*\\s*\\s*'],
      ['overlapping repeats before an optional group at the end', '\\p{L}*\\p{L}+(?:x|y)?'],
    ])('still loads %s and tokenizes with it', async (_, regex) => {
      const files = withTokenizer((t) => { t.pre_tokenizer.pretokenizers[1].pattern = { Regex: regex }; });
      const loaded = await engine.loadModel(files);
      expect(loaded.run('The cat sat on the mat.').tokens.join('')).toContain('cat');
      loaded.dispose();
    });

    // Backtracking that grows as a power of the text's length: each repeat sharing characters with
    // the one before multiplies the work of a failing match by the length.
    const POWER = 'before something that can fail, which can take time growing as a power of the text\'s length';
    const PRODUCT = 'before something that can fail, which can take time growing with the product of their repeat counts';
    const refusedRun = (regex, fragment, why) => `${JSON.stringify(regex)} is refused: it repeats overlapping characters in ${fragment} ${why}`;

    test.each([
      ['a Split pre-tokenizer', (t, regex) => { t.pre_tokenizer.pretokenizers[1].pattern = { Regex: regex }; }, SPLIT],
      ['a Replace normalizer', (t, regex) => { t.normalizer.normalizers.push({ type: 'Replace', pattern: { Regex: regex }, content: '' }); }, 'normalizer.normalizers[2]'],
    ])('in %s, [a-z]+[a-z]+[a-z]+[a-z]+! and \\s*\\s*\\s*\\s*\\s*$ (each over 60 s on 400 characters) are refused', async (_, place, field) => {
      for (const [regex, fragment] of [['[a-z]+[a-z]+[a-z]+[a-z]+!', '[a-z]+[a-z]+[a-z]+[a-z]+'], ['\\s*\\s*\\s*\\s*\\s*$', '\\s*\\s*\\s*\\s*\\s*']]) {
        await expect(engine.loadModel(withTokenizer((t) => { place(t, regex); }))).rejects.toThrow(
          `tokenizer.json ${field}.pattern.Regex ${refusedRun(regex, fragment, POWER)}`);
      }
    });

    test.each([
      ['[a-z]+[a-z]+[0-9]+', '[a-z]+[a-z]+', POWER],
      ['\\s*\\s*[\\r\\n]+', '\\s*\\s*', POWER], // at the end, but the last repeat takes fewer characters than the others
      ['[a-z]+x?[a-z]+!', '[a-z]+x?[a-z]+', POWER],
      ['[a-z]+[0-9]*[a-z]+!', '[a-z]+…[a-z]+', POWER], // [0-9]* can match nothing, so it does not separate them
      ['(?:[a-z]+[a-z]+|x)y', '[a-z]+[a-z]+', POWER],
      ['[a-z]+(?:[a-z]+)!', '[a-z]+…[a-z]+', POWER],
      ['\\s+\\s+(?=x)', '\\s+\\s+', POWER],
      ['[a-z]+(?=[a-z]*!)', '[a-z]+(?=[a-z]*!)', POWER], // the lookahead's own repeat runs again for each length of [a-z]+
      ['[a-z]{0,1000}[a-z]{0,1000}!', '[a-z]{0,1000}[a-z]{0,1000}', PRODUCT],
    ])('%s is refused', async (regex, fragment, why) => {
      const files = withTokenizer((t) => { t.pre_tokenizer.pretokenizers[1].pattern = { Regex: regex }; });
      await expect(engine.loadModel(files)).rejects.toThrow(refusedRun(regex, fragment, why));
    });

  });

  describe('defect 7: labels are the text as typed, whatever the normalisation', () => {
    test('decomposed (NFD) text keeps its capitals and its accent, and only the accented word is unknown', () => {
      const nfd = model.run('The CAT sat on the cafe\u0301.');
      expect(nfd.tokens).toEqual(['[CLS]', 'The', 'CAT', 'sat', 'on', 'the', 'cafe\u0301', '.', '[SEP]']);
      expect(nfd.unknown).toEqual([false, false, false, false, false, false, true, false, false]);
      const nfc = model.run('The CAT sat on the caf\u00e9.');
      expect(nfc.tokens[6]).toBe('caf\u00e9');
      // The ids are the library's, as before: those of the lowercase NFC text.
      expect(Array.from(nfd.ids)).toEqual(Array.from(model.run('the cat sat on the caf\u00e9.').ids));
      expect(Array.from(nfc.ids)).toEqual(Array.from(nfd.ids));
    });

    test('word pieces show the typed text without ##: JUMPING is JUMP, ING', async () => {
      const files = withTokenizer((t) => {
        delete t.model.vocab.regardless;
        t.model.vocab['##ing'] = 5999;
      });
      const pieces = await engine.loadModel(files);
      const r = pieces.run('JUMPING jumping');
      expect(r.tokens).toEqual(['[CLS]', 'JUMP', 'ING', 'jump', 'ing', '[SEP]']);
      expect(Array.from(r.ids)).toEqual([2, 4000, 5999, 4000, 5999, 3]);
      pieces.dispose();
    });

    test('a 1 MB paste read whole gets its labels too (the labelling once spread 300,000 tokens as arguments and overflowed the stack)', () => {
      const text = 'The CAT sat on the mat. '.repeat(45000);
      const whole = model.tokenize(text); // run() reads only the start of it (model/long-paste.test.js)
      expect(whole.ids).toHaveLength(7 * 45000 + 2);
      expect(whole.tokens.slice(0, 5)).toEqual(['[CLS]', 'The', 'CAT', 'sat', 'on']);
      expect(whole.tokens.slice(-3)).toEqual(['mat', '.', '[SEP]']);
    });

    test('a byte-level BPE labels every token with the text it came from, spaces included', async () => {
      const gpt2 = await engine.loadModel(tinyModelFor(gpt2Tokenizer()));
      const text = 'The CAT sat on the cafe\u0301 🦓.';
      const r = gpt2.run(text);
      // The accent's two bytes and the emoji's four are tokens of their own, each showing its character.
      expect(r.tokens).toEqual(['The', ' C', 'A', 'T', ' sat', ' on', ' the', ' c', 'a', 'f', 'e', '\u0301', '\u0301', ' ',
        '🦓', '🦓', '🦓', '🦓', '.']);
      expect(r.unknown.every((u) => !u)).toBe(true);
      gpt2.dispose();
    });
  });

  test('1,000 loads refused for a tokenizer, before or after the weights loaded, leave the heap in-use bytes unchanged', async () => {
    // Refused after the weights loaded: the default model's files (slow to load, so a few) and a
    // tiny model's; refused before: a malformed vocabulary.
    const tooLarge = withTokenizer((t) => { t.model.vocab.cat = 6000; });
    const tiny = tinyModelFor(gpt2Tokenizer());
    tiny.tokenizer.model.vocab.Ġcat = tiny.config.vocab_size;
    const malformed = withTokenizer((t) => { t.model.vocab = null; });
    await expect(engine.loadModel(tooLarge)).rejects.toThrow('outside config.json\'s vocab_size');
    await expect(engine.loadModel(tiny)).rejects.toThrow('outside config.json\'s vocab_size');
    const before = engine.memory().usedBytes;
    for (let i = 0; i < 10; i++) await expect(engine.loadModel(tooLarge)).rejects.toThrow('tokenizer.json model.vocab["cat"] is 6000');
    for (let i = 0; i < 495; i++) {
      await expect(engine.loadModel(tiny)).rejects.toThrow('tokenizer.json model.vocab["Ġcat"]');
      await expect(engine.loadModel(malformed)).rejects.toThrow('tokenizer.json model.vocab must be an object');
    }
    expect(engine.memory().usedBytes).toBe(before);
    expect(model.run('the cat sat').tokens).toEqual(['[CLS]', 'the', 'cat', 'sat', '[SEP]']);
  });
});
