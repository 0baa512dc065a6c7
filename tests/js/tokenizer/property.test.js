// Tokenizer fuzzing (issue 11): seeded random Unicode through six tokenizers (the default model's,
// and GPT-2-, RoBERTa-, bert-base-uncased-, Llama-2- and T5-style ones built in
// tokenizer-builders.js), checking
// for every string that nothing throws, that every id is one of the vocabulary's, and that the
// labels cover the input:
//
// - a token with a span has as label exactly the input's slice at that span; the only tokens
//   without one are the post-processor's ([CLS], [SEP], <s>, </s>) and a token made only of the
//   space a tokenizer inserts before the text (RoBERTa's "Ġ", Llama's and T5's "▁");
// - spans come in order (starts and ends never decrease), and two neighbours overlap only inside
//   one cluster of the input (a character with its combining marks), which a byte-level model
//   splits into several byte tokens or a normalizer expands ("İ" → "i̇");
// - every code point of the input lies in some token's span, except whitespace where the
//   pre-tokenizer drops it (all but the byte-level ones), whitespace just before an added token
//   that strips it (RoBERTa's <mask>, lstrip), and code points the normalizer turns into nothing or
//   whitespace on their own (bert: NUL, controls, ZWJ, lone accents);
// - so the labels, each overlap counted once, rejoin to the input without those code points.
//
// The seed is fixed (MULTIHEAD_PROPERTY_SEED overrides it); a failure names the seed, the case and
// the string, so it can be replayed.
import { Tokenizer } from '@huggingface/tokenizers';
import { loadTokenizer } from '../../../web/src/tokenizer/tokenizer.js';
import {
  bertUncasedTokenizer, defaultModelFiles, gpt2Tokenizer, llamaTokenizer, robertaTokenizer, t5Tokenizer, vocabSizeOf, vocabularyIds,
} from './builders.js';
import { generator, randomText } from './random-text.js';

const SEED = Number(process.env.MULTIHEAD_PROPERTY_SEED ?? 20240611);
const CASES = 2000; // per tokenizer

const MARK = /^\p{M}$/u;
const isWhitespace = (char) => /^\s$/u.test(char);

/** Cluster index of each UTF-16 unit: a code point with the marks and Hangul vowel/final jamo after it. */
function clusterIndex(text) {
  const index = new Array(text.length);
  let cluster = -1;
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i);
    const joins = i > 0 && (MARK.test(String.fromCodePoint(code)) || (code >= 0x1160 && code <= 0x11ff));
    if (!joins) cluster++;
    const size = code > 0xffff ? 2 : 1;
    for (let k = 0; k < size; k++) index[i + k] = cluster;
    i += size;
  }
  return index;
}

const TOKENIZERS = [
  ['the default model', () => defaultModelFiles().tokenizer, { unspanned: ['[CLS]', '[SEP]'], keepsWhitespace: false }],
  ['a GPT-2-style byte-level BPE', gpt2Tokenizer, { unspanned: [], keepsWhitespace: true }],
  ['a RoBERTa-style byte-level BPE', robertaTokenizer, { unspanned: ['<s>', '</s>', 'Ġ'], keepsWhitespace: true, stripsBefore: '<mask>' }],
  ['a bert-base-uncased-style WordPiece', bertUncasedTokenizer, { unspanned: ['[CLS]', '[SEP]'], keepsWhitespace: false }],
  ['a Llama-2-style BPE with byte fallback', llamaTokenizer, { unspanned: ['<s>', '▁'], keepsWhitespace: true }],
  ['a T5-style Unigram', t5Tokenizer, { unspanned: ['</s>', '▁'], keepsWhitespace: true }],
];

/** For each UTF-16 unit: is it in the run of whitespace just before an occurrence of `token`? */
function whitespaceBefore(text, token) {
  const marked = new Array(text.length).fill(false);
  if (!token) return marked;
  for (let at = text.indexOf(token); at >= 0; at = text.indexOf(token, at + 1)) {
    for (let i = at - 1; i >= 0 && isWhitespace(text[i]); i--) marked[i] = true;
  }
  return marked;
}

describe.each(TOKENIZERS)('%s', (name, make, { unspanned, keepsWhitespace, stripsBefore }) => {
  let tokenizer, normalizer, vocabulary, vocabSize;
  beforeAll(async () => {
    const json = make();
    tokenizer = await loadTokenizer(json);
    vocabSize = name === 'the default model' ? JSON.parse(defaultModelFiles().config).vocab_size : vocabSizeOf(json);
    tokenizer.checkVocabularySize(vocabSize);
    normalizer = new Tokenizer(json, {}).normalizer; // the oracle for what normalizing removes
    vocabulary = vocabularyIds(json);
  });

  /** Every property of one string's encoding; returns a description of the first that fails. */
  function violation(text) {
    let encoded;
    try {
      encoded = tokenizer.encode(text);
    } catch (error) {
      return `encode threw ${error.message}`;
    }
    const { ids, tokens, spans } = encoded;
    if (ids.length !== tokens.length || spans.length !== tokens.length) return 'ids, tokens and spans differ in length';
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize || !vocabulary.has(id)) return `id ${id} is not in the vocabulary`;
    }
    const cluster = clusterIndex(text);
    const covered = new Array(text.length).fill(false);
    let previous = null;
    let rejoined = '';
    for (let i = 0; i < tokens.length; i++) {
      const span = spans[i];
      if (!span) {
        if (!unspanned.includes(tokens[i])) return `token ${i} ${JSON.stringify(tokens[i])} has no span`;
        continue;
      }
      const [start, end] = span;
      if (!(start >= 0 && start < end && end <= text.length)) return `token ${i} has span [${span}]`;
      if (tokens[i] !== text.slice(start, end)) return `token ${i}'s label ${JSON.stringify(tokens[i])} is not the text at [${span}]`;
      if (previous) {
        if (start < previous[0] || end < previous[1]) return `token ${i}'s span [${span}] goes back from [${previous}]`;
        if (start < previous[1] && cluster[start] !== cluster[previous[1] - 1]) {
          return `tokens ${i - 1} and ${i} overlap across clusters: [${previous}] and [${span}]`;
        }
      }
      rejoined += text.slice(Math.max(start, previous ? previous[1] : 0), end);
      covered.fill(true, start, end);
      previous = span;
    }
    let expected = '';
    const stripped = whitespaceBefore(text, stripsBefore);
    for (let i = 0; i < text.length;) {
      const char = String.fromCodePoint(text.codePointAt(i));
      if (covered[i]) {
        expected += char;
      } else {
        const dropped = (isWhitespace(char) && (!keepsWhitespace || stripped[i])) || (normalizer !== null && normalizer(char).trim() === '');
        if (!dropped) return `${JSON.stringify(char)} at ${i} is in no token's span`;
      }
      i += char.length;
    }
    if (rejoined !== expected) return `the labels rejoin to ${JSON.stringify(rejoined)}, not ${JSON.stringify(expected)}`;
    return null;
  }

  test(`${CASES} random strings: nothing throws, every id is in the vocabulary, the labels cover the text`, () => {
    const rng = generator(SEED);
    let tokens = 0;
    for (let c = 0; c < CASES; c++) {
      const text = randomText(rng);
      const problem = violation(text);
      if (problem) throw new Error(`seed ${SEED}, case ${c}, text ${JSON.stringify(text)}: ${problem}`);
      tokens += tokenizer.encode(text).ids.length;
    }
    expect(tokens).toBeGreaterThan(CASES * 3); // the strings were not all empty
  });
});
