// tokenizer.json as the Rust `tokenizers` library reads it, whichever version wrote it. The Hub's
// files for bert-base-uncased, distilbert-base-uncased, roberta-base and gpt2 were written before
// the model object carried a "type", and the Rust library (so transformers too) still reads them:
// it infers the kind of model from its fields, and takes a missing normalizer, pre-tokenizer,
// post-processor, decoder or added_tokens list as none. @huggingface/tokenizers 0.2.0 guesses a
// typeless BPE without continuing_subword_prefix wrongly and fails on a missing part, so the file
// is rewritten here into the current layout, as that library needs it to read it as the Rust
// library does, before it is checked (checks.js) and read.
//
// It changes only what the older layouts leave out or name differently, as the Rust library
// reads it; anything else, malformed or not, is passed on as given for the checks to judge.
// The caller's object is not modified: changed objects are shallow copies.

/** What each kind of model needs, in the order the Rust library tries them on a typeless model. */
const INFERRED = [
  ['BPE', (m) => isObject(m.vocab) && 'merges' in m],
  ['WordPiece', (m) => isObject(m.vocab) && ['unk_token', 'continuing_subword_prefix', 'max_input_chars_per_word'].every((k) => k in m)],
  ['WordLevel', (m) => isObject(m.vocab) && 'unk_token' in m],
  ['Unigram', (m) => Array.isArray(m.vocab)],
];

/** How a typeless model is told apart, for the message when none fits. */
export const MODEL_KINDS = 'BPE (vocab and merges), WordPiece (vocab, unk_token, continuing_subword_prefix and '
  + 'max_input_chars_per_word), WordLevel (vocab and unk_token) or Unigram (vocab as [token, score] pairs)';

/** `json` (a parsed tokenizer.json) in the current layout: a copy where anything changed. */
export function currentLayout(json) {
  if (!isObject(json)) return json;
  const out = { ...json };
  for (const part of ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder']) out[part] ??= null;
  if (out.added_tokens === undefined) out.added_tokens = []; // null is malformed, as the Rust library has it
  if (isObject(json.model) && json.model.type === undefined) {
    const kind = INFERRED.find(([, fits]) => fits(json.model));
    if (kind) out.model = { type: kind[0], ...json.model };
  }
  // The library has no case for "WordLevel": it reads one with a continuing_subword_prefix (an
  // older WordPiece missing max_input_chars_per_word) as a WordPiece, splitting unknown words
  // into pieces. The Rust library's WordLevel reads only vocab and unk_token.
  if (isObject(out.model) && out.model.type === 'WordLevel' && 'continuing_subword_prefix' in out.model) {
    out.model = { ...out.model };
    delete out.model.continuing_subword_prefix;
  }
  return out;
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
