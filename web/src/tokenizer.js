// Text → token ids with the model's tokenizer.json, through @huggingface/tokenizers (the one
// tokenizer path for every model family). Also recovers each token's original text for display,
// so an unknown word shows as itself (marked unknown) rather than as [UNK].
//
// The tokenizer library is imported when the first model loads, not with the package: code that
// only uses attention layers never needs it (nor, unbundled in a browser, an import map for it).

/** Reads tokenizer.json; resolves to a TextTokenizer. */
export async function loadTokenizer(tokenizerJson) {
  const { Tokenizer } = await import('@huggingface/tokenizers');
  return new TextTokenizer(Tokenizer, tokenizerJson);
}

class TextTokenizer {
  #tokenizer;
  #unkId;
  #specialIds;

  constructor(Tokenizer, tokenizerJson) {
    try {
      this.#tokenizer = new Tokenizer(tokenizerJson, {});
    } catch (error) {
      throw new Error(`tokenizer.json could not be read: ${error.message}`);
    }
    const vocab = this.#tokenizer.get_vocab(true);
    this.#unkId = vocab.get(tokenizerJson.model?.unk_token ?? '[UNK]');
    // [CLS], [SEP] and the like; not [UNK], which stands for a word of the text.
    this.#specialIds = new Set((tokenizerJson.added_tokens ?? []).filter((t) => t.special && t.id !== this.#unkId).map((t) => t.id));
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
