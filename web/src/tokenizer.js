// Text → token ids with the model's tokenizer.json, through @huggingface/tokenizers (the one
// tokenizer path for every model family). Also recovers each token's original text for display,
// so an unknown word shows as itself (marked unknown) rather than as [UNK].
//
// A tokenizer.json is untrusted input: it is checked field by field before the library reads it
// (tokenizer-checks.js), its regexes are refused if they can hang the page (tokenizer-regex.js),
// and its ids are checked against the model's vocabulary size once config.json is read.
//
// The tokenizer library is imported when the first model loads, not with the package: code that
// only uses attention layers never needs it (nor, unbundled in a browser, an import map for it).
import { checkPatterns, checkTokenizerJson, checkVocabularySize } from './tokenizer-checks.js';

/** Checks and reads tokenizer.json; resolves to a TextTokenizer. */
export async function loadTokenizer(tokenizerJson) {
  const checked = checkTokenizerJson(tokenizerJson);
  const { Tokenizer } = await import('@huggingface/tokenizers');
  return new TextTokenizer(Tokenizer, tokenizerJson, checked);
}

export class TextTokenizer {
  #tokenizer;
  #unkId;
  #specialIds;
  #largest;

  constructor(Tokenizer, tokenizerJson, checked) {
    // The library reads a WordLevel model's unknown token from its second argument (the
    // tokenizer_config.json it would otherwise take); without it an unknown word gets no id.
    const config = tokenizerJson.model.type === 'WordLevel' ? { unk_token: tokenizerJson.model.unk_token } : {};
    try {
      this.#tokenizer = new Tokenizer(tokenizerJson, config);
    } catch (error) {
      throw new Error(`tokenizer.json could not be read: ${error.message}`);
    }
    checkPatterns(checked.patterns);
    this.#largest = checked.largest;
    this.#unkId = this.#tokenizer.model.unk_token_id;
    // [CLS], [SEP] and the like; not [UNK], which stands for a word of the text.
    this.#specialIds = new Set(tokenizerJson.added_tokens.filter((t) => t.special && t.id !== this.#unkId).map((t) => t.id));
  }

  /** Throws if an id of the tokenizer is outside a vocabulary of `vocabSize` (config.json's). */
  checkVocabularySize(vocabSize) {
    checkVocabularySize(this.#largest, vocabSize);
  }

  /** { ids, tokens, unknown }: tokens are display text, unknown marks ids that are the unknown token. */
  encode(text) {
    const { ids, tokens } = this.#tokenizer.encode(text);
    const words = this.#tokenizer.pre_tokenizer?.pre_tokenize_text(text) ?? [];
    const ordinary = ids.filter((id) => !this.#specialIds.has(id)).length;
    // A word-level vocabulary gives one id per pre-token: then each id's original text is known.
    const aligned = ordinary === words.length;
    let word = 0;
    const shown = ids.map((id, i) => (this.#specialIds.has(id) || !aligned ? tokens[i] : words[word++]));
    return { ids, tokens: shown, unknown: ids.map((id) => id === this.#unkId) };
  }
}
