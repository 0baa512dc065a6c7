// Test helper: tokenizer.json objects in the layouts of real Hub tokenizers, built here from a
// small corpus so tests need no download: the default model's own (read from web/models/default),
// a GPT-2-style byte-level BPE (merges as "a b" strings, ByteLevel post-processor), a
// RoBERTa-style one (merges as ["a", "b"] pairs, a prefix space, RobertaProcessing), a
// bert-base-uncased-style WordPiece (BertNormalizer, BertPreTokenizer, ## pieces), a Llama-2-style
// BPE over characters (Prepend and Replace normalizers, byte fallback, fused unknowns) and a
// T5-style Unigram (Precompiled normalizer, Metaspace).
import { readFileSync } from 'node:fs';

const DEFAULT = new URL('../../../web/models/default/', import.meta.url);

/** The default model's files; `tokenizer` is a fresh object each call, for tests to modify. */
export function defaultModelFiles() {
  return {
    config: readFileSync(new URL('config.json', DEFAULT), 'utf8'),
    tokenizer: JSON.parse(readFileSync(new URL('tokenizer.json', DEFAULT), 'utf8')),
    weights: new Uint8Array(readFileSync(new URL('model.safetensors', DEFAULT))),
  };
}

const CORPUS = `The cat sat on the mat because it was tired. A dog played in the garden, and the children
were playing with it all day long. Playing, played, plays: the player is playing! She said that
they'd gone to the market at 10 o'clock to buy 3 apples and 12 eggs. Café au lait, naïve résumé.
Numbers like 2024 and 3.14 appear in text; so do e-mail addresses, URLs and "quotes".`;

const special = (id, content, extra = {}) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true, ...extra });

/** GPT-2's printable stand-in for each byte (bytes_to_unicode in the GPT-2 encoder). */
export function byteAlphabet() {
  const printable = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const map = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) map[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + extra++);
  return map;
}

const GPT2_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Learns `count` BPE merges over the corpus, as byte-level words; ties go to the pair seen first. */
function learnMerges(count) {
  const alphabet = byteAlphabet();
  const encoder = new TextEncoder();
  return learnMergesOf((CORPUS.match(GPT2_SPLIT) ?? []).map((w) => Array.from(encoder.encode(w), (b) => alphabet[b])), count);
}

function learnMergesOf(words, count) {
  const merges = [];
  for (let n = 0; n < count; n++) {
    const counts = new Map();
    for (const word of words) {
      for (let i = 0; i + 1 < word.length; i++) {
        const key = `${word[i]} ${word[i + 1]}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    let best = null;
    for (const [key, c] of counts) if (!best || c > counts.get(best)) best = key;
    if (!best) break;
    const [a, b] = best.split(' ');
    merges.push([a, b]);
    words = words.map((word) => {
      const out = [];
      for (let i = 0; i < word.length; i++) {
        if (i + 1 < word.length && word[i] === a && word[i + 1] === b) {
          out.push(a + b);
          i++;
        } else {
          out.push(word[i]);
        }
      }
      return out;
    });
  }
  return merges;
}

/** Vocabulary of a byte-level BPE: the 256 byte characters, then each merge's result. */
function byteLevelVocab(merges) {
  const vocab = {};
  byteAlphabet().forEach((char, i) => { vocab[char] = i; });
  for (const [a, b] of merges) if (!(a + b in vocab)) vocab[a + b] = Object.keys(vocab).length;
  return vocab;
}

const byteLevelStep = (addPrefixSpace) => ({ type: 'ByteLevel', add_prefix_space: addPrefixSpace, trim_offsets: true, use_regex: true });

function bpeModel(vocab, merges) {
  return { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
    fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges };
}

/** GPT-2's layout: merges written as "a b" strings, <|endoftext|> the last id. */
export function gpt2Tokenizer() {
  const merges = learnMerges(300);
  const vocab = byteLevelVocab(merges);
  const eos = Object.keys(vocab).length;
  vocab['<|endoftext|>'] = eos;
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [special(eos, '<|endoftext|>', { normalized: true })],
    normalizer: null,
    pre_tokenizer: byteLevelStep(false),
    post_processor: byteLevelStep(true),
    decoder: byteLevelStep(true),
    model: bpeModel(vocab, merges.map(([a, b]) => `${a} ${b}`)),
  };
}

/** RoBERTa's layout, with newer tokenizers' merge pairs and a prefix space before the text. */
export function robertaTokenizer() {
  const merges = learnMerges(300);
  const base = byteLevelVocab(merges);
  const vocab = { '<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3 };
  for (const token of Object.keys(base)) vocab[token] = Object.keys(vocab).length;
  const mask = Object.keys(vocab).length;
  vocab['<mask>'] = mask;
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [special(0, '<s>'), special(1, '<pad>'), special(2, '</s>'), special(3, '<unk>'), special(mask, '<mask>', { lstrip: true })],
    normalizer: null,
    pre_tokenizer: byteLevelStep(true),
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: true },
    decoder: byteLevelStep(true),
    model: { ...bpeModel(vocab, merges), unk_token: null },
  };
}

/** bert-base-uncased's layout: lowercasing, accent stripping, CJK split, and ## word pieces. */
export function bertUncasedTokenizer() {
  const words = [...new Set(CORPUS.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '').match(/\p{L}+/gu))];
  const chars = [...new Set([...'abcdefghijklmnopqrstuvwxyz0123456789.,;:!?\'"-()', ...'猫犬中文日本語한국어'])];
  const tokens = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...chars, ...chars.map((c) => `##${c}`),
    ...words, 'play', '##ing', '##ed', '##s', '##er', '##ly'];
  const vocab = {};
  for (const token of tokens) if (!(token in vocab)) vocab[token] = Object.keys(vocab).length;
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t, i) => special(i, t)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } } },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

/** Llama 2's layout: "▁" prepended and for every space, BPE over the whole text, bytes as a fallback. */
export function llamaTokenizer() {
  const text = `▁${CORPUS.replaceAll(' ', '▁')}`;
  const merges = learnMergesOf([Array.from(text)], 200);
  const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  for (let b = 0; b < 256; b++) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = 3 + b;
  for (const char of new Set(text)) if (!(char in vocab)) vocab[char] = Object.keys(vocab).length;
  for (const [a, b] of merges) if (!(a + b in vocab)) vocab[a + b] = Object.keys(vocab).length;
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [special(0, '<unk>'), special(1, '<s>'), special(2, '</s>')],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] },
    pre_tokenizer: null,
    post_processor: { type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges: merges.map(([a, b]) => `${a} ${b}`) },
  };
}

/** T5's layout: a Unigram model over "▁"-joined words, runs of spaces collapsed, </s> after the text. */
export function t5Tokenizer() {
  const words = [...new Set(CORPUS.match(/\p{L}+|\p{N}+|[^\s\p{L}\p{N}]/gu))];
  const chars = [...new Set(CORPUS.replace(/\s/g, ''))];
  const vocab = [['<pad>', 0], ['</s>', 0], ['<unk>', 0], ['▁', -2],
    ...words.map((w, i) => [`▁${w}`, -4 - i / 100]), ...words.map((w, i) => [w, -6 - i / 100]), ...chars.map((c) => [c, -9])];
  const seen = new Set();
  const unique = vocab.filter(([t]) => !seen.has(t) && seen.add(t));
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [special(0, '<pad>'), special(1, '</s>'), special(2, '<unk>')],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Precompiled', precompiled_charsmap: null }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }] },
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: { type: 'TemplateProcessing',
      single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      pair: [],
      special_tokens: { '</s>': { id: '</s>', ids: [1], tokens: ['</s>'] } } },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 2, vocab: unique, byte_fallback: false },
  };
}

/** Every id a tokenizer.json gives a token: its model's (a Unigram's are indices) and its added tokens'. */
export function vocabularyIds(tokenizer) {
  const model = Array.isArray(tokenizer.model.vocab) ? tokenizer.model.vocab.map((_, i) => i) : Object.values(tokenizer.model.vocab);
  return new Set([...model, ...tokenizer.added_tokens.map((t) => t.id)]);
}

/** Number of ids a tokenizer.json uses (its largest id + 1): the vocab_size a model needs for it. */
export function vocabSizeOf(tokenizer) {
  return Math.max(...vocabularyIds(tokenizer)) + 1;
}
