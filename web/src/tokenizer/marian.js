// Marian's tokenizer, as Helsinki-NLP's repositories ship it: no tokenizer.json, but source.spm
// and target.spm (one SentencePiece model per language) and vocab.json, which numbers the pieces
// of both for the model. As transformers' MarianTokenizer does, a text is cut into pieces by its
// language's model and each piece looked up in vocab.json, a piece it lacks becoming <unk>; a
// source ends with </s> and has no BOS. Each model is read as SentencePiece's tokenizer.json
// (sentencepiece.js), so cutting is the one tokenizer library's, with its spans and long-text cuts.
import { readSentencePiece, sentencePieceTokenizerJson } from './sentencepiece.js';

const MAX_VOCABULARY = 1 << 20;

/** vocab.json's { piece: id }, checked: ids from 0, each once, with </s> and <unk>. */
function checkVocab(vocab) {
  if (vocab === null || typeof vocab !== 'object' || Array.isArray(vocab)) throw new TypeError('vocab.json must be an object of { piece: id }');
  const entries = Object.entries(vocab);
  if (entries.length === 0 || entries.length > MAX_VOCABULARY) throw new RangeError(`vocab.json must hold from 1 to ${MAX_VOCABULARY} pieces, got ${entries.length}`);
  const seen = new Set();
  for (const [piece, id] of entries) {
    if (!Number.isInteger(id) || id < 0 || id >= MAX_VOCABULARY || seen.has(id)) {
      throw new RangeError(`vocab.json's id of ${JSON.stringify(piece.slice(0, 40))} must be an integer from 0 to ${MAX_VOCABULARY - 1} that no other piece has, got ${JSON.stringify(id)}`);
    }
    seen.add(id);
  }
  for (const needed of ['</s>', '<unk>']) {
    if (!Object.hasOwn(vocab, needed)) throw new Error(`vocab.json has no ${needed}, which Marian's tokenizer writes`);
  }
  return new Map(entries);
}

/** Reads { source, target (the .spm files' bytes), vocab (vocab.json, parsed) } into a MarianTokenizer. */
export async function loadMarianTokenizer({ source, target, vocab }, loadJson) {
  const ids = checkVocab(vocab);
  const [sourceTokenizer, targetTokenizer] = await Promise.all([['source.spm', source], ['target.spm', target]].map(
    ([name, bytes]) => loadJson(sentencePieceTokenizerJson(readSentencePiece(bytes, name)))));
  return new MarianTokenizer(sourceTokenizer, targetTokenizer, ids);
}

class MarianTokenizer {
  #source; // TextTokenizer of source.spm: its ids are the model's pieces, not Marian's
  #target;
  #ids; // Map piece → Marian id
  #pieces; // Marian id → piece
  #unk;
  #special; // </s>, <unk>, <pad>
  maskToken = null;
  closingToken;

  constructor(source, target, ids) {
    this.#source = source;
    this.#target = target;
    this.#ids = ids;
    this.#pieces = new Map([...ids].map(([piece, id]) => [id, piece]));
    this.#unk = ids.get('<unk>');
    this.#special = new Set(['</s>', '<unk>', '<pad>'].filter((p) => ids.has(p)).map((p) => ids.get(p)));
    this.closingToken = { id: ids.get('</s>'), content: '</s>' };
  }

  checkVocabularySize(vocabSize) {
    const largest = Math.max(...this.#ids.values());
    if (largest >= vocabSize) {
      throw new RangeError(`vocab.json has the id ${largest}, but config.json's vocab_size is ${vocabSize}: the tokenizer and the model do not match`);
    }
  }

  /** A source text: source.spm's pieces as Marian's ids, then </s> with addSpecialTokens. */
  encode(text, options = {}) {
    return this.#encode(this.#source, text, options);
  }

  /** A target text: target.spm's pieces as Marian's ids, then </s> with addSpecialTokens. */
  encodeTarget(text, options = {}) {
    return this.#encode(this.#target, text, options);
  }

  #encode(tokenizer, text, { addSpecialTokens = true, atLeast = Infinity } = {}) {
    const cut = tokenizer.encode(text, { addSpecialTokens: false, atLeast });
    // SentencePiece gives an unknown piece as the (normalized) text it stands for, and MarianTokenizer
    // looks that text up in vocab.json, where a character source.spm lacks may be target.spm's piece
    // ("ß" in an English source): so the unknown token's text is looked up too, and only then is it <unk>.
    const pieces = cut.ids.map((id, i) => (cut.unknown[i] && cut.spans[i] ? text.slice(...cut.spans[i]).normalize('NFKC') : tokenizer.piece(id)));
    const ids = pieces.map((piece) => this.#ids.get(piece) ?? this.#unk);
    const out = { ids, tokens: cut.tokens, unknown: ids.map((id) => id === this.#unk), spans: cut.spans, complete: cut.complete };
    if (addSpecialTokens) {
      out.ids.push(this.closingToken.id);
      out.tokens.push('</s>');
      out.unknown.push(false);
      out.spans.push(null);
    }
    return out;
  }

  /** How the target's model writes one id alone ("▁Haus" as " Haus"). */
  tokenText(id) {
    const piece = this.#pieces.get(id);
    return piece === undefined ? '' : this.#special.has(id) ? piece : piece.replaceAll('\u2581', ' ');
  }

  /** The target text of `ids`, as Marian's decoder writes it: pieces joined, "▁" a space, none at the start. */
  decode(ids, { skipSpecialTokens = false } = {}) {
    const kept = Array.from(ids).filter((id) => !(skipSpecialTokens && this.#special.has(id) && id !== this.#unk));
    return kept.map((id) => this.#pieces.get(id) ?? '').join('').replaceAll('\u2581', ' ').replace(/^ /, '');
  }

  isSpecial(id) {
    return this.#special.has(id);
  }
}
