// A long text read in part (issue 33, point 7): encode(text, { atLeast }) reads a text only up to a
// cut (cut.js) past which the tokens it keeps cannot change, so a 10 MB paste costs what the model
// reads. Seeded random texts (property.test.js's words, scripts, marks, emoji, controls, lone
// surrogates and whitespace, with special tokens, ▁, Σ and CJK punctuation between them) through
// every layout of tokenizer.json the package reads: the default model's and the causal one's
// (WordPiece behind a Split), GPT-2's and RoBERTa's byte-level BPE, bert-base-uncased's, Llama 2's
// BPE over a whole section, T5's Unigram, and the steps real files add: Metaspace with
// prepend_scheme "first", Digits before ByteLevel (SmolLM2), a Split keeping its matches or
// removing them, Punctuation, Whitespace, NFKD / StripAccents / NFKC / Strip, a Replace by regex
// before BertNormalizer, and a Split with a lookahead. The genuine LLM files are in
// llm-tokenizers.test.js. Checked:
// - read in part, the answer is the whole text's first tokens (ids, labels, spans, unknown flags)
//   followed by its closing ones, at least as many as asked;
// - at every place a text can be cut, no token of the whole text lies across it (but fused
//   unknowns), and the prefix's tokens are the whole text's but its last (which fused unknowns and
//   the like may change; tokenizer.js does not keep the last MARGIN).
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { Cuts } from '../../../web/src/tokenizer/cut.js';
import { currentLayout } from '../../../web/src/tokenizer/layout.js';
import { loadTokenizer } from '../../../web/src/tokenizer/tokenizer.js';
import { bertUncasedTokenizer, defaultModelFiles, gpt2Tokenizer, llamaTokenizer, robertaTokenizer, t5Tokenizer } from './builders.js';
import { generator, randomText } from './random-text.js';

const SEED = Number(process.env.MULTIHEAD_PROPERTY_SEED ?? 20240611);
const causal = () => JSON.parse(readFileSync(new URL('../../../web/models/causal/tokenizer.json', import.meta.url), 'utf8'));
const byteLevel = (useRegex) => ({ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: useRegex });

const TOKENIZERS = [
  ['the default model', () => defaultModelFiles().tokenizer],
  ['the causal model', causal],
  ['a GPT-2-style byte-level BPE', gpt2Tokenizer],
  ['a RoBERTa-style byte-level BPE', robertaTokenizer],
  ['a bert-base-uncased-style WordPiece', bertUncasedTokenizer],
  ['a Llama-2-style BPE over whole sections', llamaTokenizer],
  ['a T5-style Unigram', t5Tokenizer],
  ['a Metaspace with prepend_scheme "first"', () => ({ ...llamaTokenizer(), normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false } })],
  ['single Digits before ByteLevel (SmolLM2)', () => ({ ...gpt2Tokenizer(),
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true }, byteLevel(true)] } })],
  ['a Split that keeps its matches', () => ({ ...gpt2Tokenizer(), pre_tokenizer: { type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { Regex: '[A-Za-z]+|[0-9]+|[^\\sA-Za-z0-9]' }, behavior: 'Isolated', invert: true }, byteLevel(false)] } })],
  ['a Split that removes spaces, then Punctuation', () => ({ ...bertUncasedTokenizer(), pre_tokenizer: { type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { Regex: '\\s+' }, behavior: 'Removed', invert: false }, { type: 'Punctuation', behavior: 'Isolated' }] } })],
  ['NFKD, StripAccents, NFKC and Strip before Whitespace', () => ({ ...bertUncasedTokenizer(), normalizer: { type: 'Sequence', normalizers: [
    { type: 'NFKD' }, { type: 'StripAccents' }, { type: 'NFKC' }, { type: 'Strip', strip_left: true, strip_right: true }, { type: 'Lowercase' }] },
  pre_tokenizer: { type: 'Whitespace' } })],
  ['a Replace by regex before BertNormalizer', () => ({ ...bertUncasedTokenizer(), normalizer: { type: 'Sequence', normalizers: [
    { type: 'Replace', pattern: { Regex: '[0-9]+' }, content: '#' },
    { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true }] },
  pre_tokenizer: { type: 'WhitespaceSplit' } })],
  ['a Split with a lookahead before Metaspace', () => ({ ...t5Tokenizer(), pre_tokenizer: { type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { Regex: '\\w+(?= )|\\s+$|.' }, behavior: 'Isolated', invert: false },
    { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true }] } })],
];

const BETWEEN = ['[SEP]', '[CLS]', '</s>', '<s>', '<|endoftext|>', '▁', '▁▁', 'Σ', 'ΑΣ.Β', 'ΑΣ\'Β', '。', '，', '～', ' ', '  ', '\n', '\n\n', ' \n',
  'ｶﾞ', 'e\u0301', ' \u0301'];

/** A text of at least `length` units: random strings with special tokens and spaces between them. */
function longText(rng, length) {
  let text = '';
  while (text.length < length) text += randomText(rng) + (rng.next() < 0.3 ? rng.pick(BETWEEN) : ' ');
  return text;
}

const entry = (e, i) => JSON.stringify([e.ids[i], e.tokens[i], e.unknown[i], e.spans[i]]);
const entries = (e, from, to) => Array.from({ length: to - from }, (_, k) => entry(e, from + k));

describe.each(TOKENIZERS)('%s', (name, make) => {
  let json, tokenizer, closing;
  beforeAll(async () => {
    json = currentLayout(make());
    tokenizer = await loadTokenizer(json);
    const probe = tokenizer.encode('a');
    closing = probe.ids.length - 1 - probe.tokens.lastIndexOf('a'); // tokens the post-processor puts after a text
  });

  test('a long text read in part gives the whole text\'s first tokens, then its closing ones', () => {
    const rng = generator(SEED);
    let parts = 0;
    for (let c = 0; c < 8; c++) {
      const text = longText(rng, 300 + rng.int(500));
      const atLeast = 5 + rng.int(60);
      const part = tokenizer.encode(text, { atLeast });
      const whole = tokenizer.encode(text);
      const n = part.ids.length, total = whole.ids.length;
      const where = `seed ${SEED}, case ${c}, text ${JSON.stringify(text)}`;
      if (part.complete) {
        expect({ where, part: entries(part, 0, n) }).toEqual({ where, part: entries(whole, 0, total) });
        continue;
      }
      parts++;
      expect({ where, atLeast: n >= atLeast, first: entries(part, 0, n - closing), last: entries(part, n - closing, n) })
        .toEqual({ where, atLeast: true, first: entries(whole, 0, n - closing), last: entries(whole, total - closing, total) });
    }
    expect(parts).toBeGreaterThan(4); // most texts were long enough to be read in part
  });

  test('at every place a text can be cut, no token of the whole text but an unknown one lies across it, and the prefix\'s tokens but its last are the whole text\'s', () => {
    const rng = generator(SEED + 1);
    const cuts = new Cuts(new Tokenizer(json, json.model.type === 'WordLevel' ? { unk_token: json.model.unk_token } : {}), json);
    let places = 0;
    for (let c = 0; c < 3; c++) {
      const text = longText(rng, 100);
      const whole = tokenizer.encode(text);
      for (let at = cuts.after(text, 1); at < text.length; at = cuts.after(text, at + 1)) {
        const part = tokenizer.encode(text.slice(0, at));
        const where = `seed ${SEED + 1}, case ${c}, cut at ${at} of ${JSON.stringify(text)}`;
        // Fused unknowns (fuse_unk) are one token for a run on both sides of a cut, and the prefix's last.
        const across = whole.spans.filter((span, i) => span && span[0] < at && at < span[1] && !whole.unknown[i]);
        const kept = part.ids.length - closing - 1;
        places++;
        expect({ where, across, tokens: entries(part, 0, kept) }).toEqual({ where, across: [], tokens: entries(whole, 0, kept) });
      }
    }
    expect(places).toBeGreaterThan(10);
  });
});
