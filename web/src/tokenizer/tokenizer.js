// Text → token ids with the model's tokenizer.json, through @huggingface/tokenizers (the one
// tokenizer path for every model family), and each token's label: the slice of the text as typed
// that it came from (spans.js), so "CAT" stays "CAT" and an unknown word shows as itself,
// marked unknown, rather than as [UNK].
//
// A tokenizer.json comes in the layouts of every version of the Rust library that wrote it; the
// older ones are rewritten into the current one first (layout.js). It is untrusted
// input: it is checked field by field before the library reads it
// (checks.js), its regexes are refused if they can hang the page (regex.js),
// and its ids are checked against the model's vocabulary size once config.json is read.
//
// A run keeps only the model's length of tokens, so encode() can be asked for the first tokens of
// a text: it then reads the text only up to a cut (cut.js) past which the tokens it keeps cannot
// change, doubling that prefix until it holds enough of them. A 10 MB paste costs what is read.
//
// The tokenizer library is imported when the first model loads, not with the package: code that
// only uses attention layers never needs it (nor, unbundled in a browser, an import map for it).
import { checkPatterns, checkTokenizerJson, checkVocabularySize } from './checks.js';
import { Cuts, MARGIN } from './cut.js';
import { currentLayout } from './layout.js';
import { TokenSpans } from './spans.js';
import { loadMarianTokenizer } from './marian.js';
import { readSentencePiece, sentencePieceTokenizerJson } from './sentencepiece.js';

// A prefix starts at PREFIX_CHARS characters a token asked for, and doubles until it holds them
// beside the MARGIN of its last tokens, which a cut may change (fused unknowns…) and are not kept.
const PREFIX_CHARS = 8;

/**
 * Checks and reads a model's tokenizer files (loading/sources.js's `tokenizer`): tokenizer.json
 * (a parsed object), or { spiece, extraIds } (an older T5 copy's spiece.model alone, as T5Converter
 * reads it), or { source, target, vocab } (Marian's). Resolves to a tokenizer with encode,
 * encodeTarget (an encoder–decoder's target), decode, tokenText, checkVocabularySize.
 */
export async function loadTokenizer(file) {
  if (file?.vocab !== undefined) return loadMarianTokenizer(file, loadTokenizerJson);
  if (file?.spiece !== undefined) {
    return loadTokenizerJson(sentencePieceTokenizerJson(readSentencePiece(file.spiece, 'spiece.model'), { sentinels: file.extraIds, closing: '</s>' }));
  }
  return loadTokenizerJson(file);
}

async function loadTokenizerJson(file) {
  const tokenizerJson = currentLayout(file);
  const checked = checkTokenizerJson(tokenizerJson);
  const { Tokenizer } = await import('@huggingface/tokenizers');
  return new TextTokenizer(Tokenizer, tokenizerJson, checked);
}

class TextTokenizer {
  #tokenizer;
  #spans;
  #unkId;
  #largest;
  #special; // ids of the added tokens marked special ([CLS], <|endoftext|>, [UNK]…)
  #cuts;
  #closings; // how many tokens the post-processor puts after a text: [without, with] special tokens
  maskToken; // { id, content } of the mask token ([MASK], <mask>), or null
  closingToken; // { id, content } of the token the post-processor ends a text with ([SEP], </s>), or null

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
    const special = (tokenizerJson.added_tokens ?? []).filter((t) => t.special === true);
    this.#special = new Set(special.map((t) => t.id));
    this.#spans = new TokenSpans(this.#tokenizer, tokenizerJson);
    this.#cuts = new Cuts(this.#tokenizer, tokenizerJson);
    this.#closings = [false, true].map((add) => closingCount(this.#tokenizer.post_processor, add));
    // tokenizer.json gives no token a role (tokenizer_config.json does, and multihead does not read
    // it): the mask token is the special token spelled "mask" inside brackets, as every masked LM
    // on the Hub spells it ([MASK], <mask>); the closing token is the special token the
    // post-processor puts after a text ([SEP], </s>), if it puts one.
    const mask = special.find((t) => /^\W{0,2}mask\W{0,2}$/i.test(t.content));
    this.maskToken = mask ? { id: mask.id, content: mask.content } : null;
    const probe = this.encode('a');
    const last = probe.ids.length - 1;
    this.closingToken = last > 0 && probe.spans[last] === null && this.#special.has(probe.ids[last])
      ? { id: probe.ids[last], content: probe.tokens[last] } : null;
  }

  /** Throws if an id of the tokenizer is outside a vocabulary of `vocabSize` (config.json's). */
  checkVocabularySize(vocabSize) {
    checkVocabularySize(this.#largest, vocabSize);
  }

  /** The vocabulary's own spelling of one id ("▁cat", "Ġcat", "##ing"), or undefined. */
  piece(id) {
    return this.#tokenizer.id_to_token(id);
  }

  /** An encoder–decoder's target text: the same tokenizer as a source's (Marian's has one of its own). */
  encodeTarget(text, options) {
    return this.encode(text, options);
  }

  /** How the tokenizer writes one id on its own: "##ing", " cat" (GPT-2's "Ġcat"), "[MASK]". */
  tokenText(id) {
    return this.#tokenizer.decode([id]);
  }

  /** The text of `ids` together, through the tokenizer's decoder; with skipSpecialTokens, without [CLS], <|endoftext|>… */
  decode(ids, { skipSpecialTokens = false } = {}) {
    if (ids.length === 0) return ''; // the library refuses an empty list
    return this.#tokenizer.decode(Array.from(ids), { skip_special_tokens: skipSpecialTokens });
  }

  /** Whether `id` is one of tokenizer.json's special added tokens. */
  isSpecial(id) {
    return this.#special.has(id);
  }

  /**
   * { ids, tokens, unknown, spans, complete }: the library's ids; tokens as labels, each the slice
   * of `text` at its span, or the token's own text where it has none (the post-processor's [CLS],
   * [SEP]…); unknown marks the unknown token's id; spans[i] is [start, end) in `text`, or null.
   * Without addSpecialTokens the post-processor adds none (a chat template's text already holds
   * them). With `atLeast`, a text with more tokens may be read only in part: the answer then holds
   * at least that many, the whole text's first ones followed by its closing ones ([SEP]), and
   * `complete` is false.
   */
  encode(text, { addSpecialTokens = true, atLeast = Infinity } = {}) {
    atLeast = Math.max(1, atLeast);
    for (let length = PREFIX_CHARS * atLeast; length < text.length; length *= 2) {
      const cut = this.#cuts.after(text, length);
      if (cut >= text.length) break;
      const start = this.#encodeWhole(text.slice(0, cut), addSpecialTokens);
      const kept = start.ids.length - MARGIN;
      if (kept >= atLeast) {
        const closing = this.#closings[addSpecialTokens ? 1 : 0];
        const pick = (list) => [...list.slice(0, kept - closing), ...list.slice(list.length - closing)];
        return { ids: pick(start.ids), tokens: pick(start.tokens), unknown: pick(start.unknown), spans: pick(start.spans), complete: false };
      }
      length = cut;
    }
    return { ...this.#encodeWhole(text, addSpecialTokens), complete: true };
  }

  #encodeWhole(text, addSpecialTokens) {
    const { ids, tokens } = this.#tokenizer.encode(text, { add_special_tokens: addSpecialTokens });
    const spans = this.#spans.spans(text, tokens) ?? tokens.map(() => null);
    return {
      ids,
      tokens: tokens.map((token, i) => (spans[i] ? text.slice(spans[i][0], spans[i][1]) : token)),
      unknown: ids.map((id) => id === this.#unkId),
      spans,
    };
  }
}

/** How many tokens the library's `processor` puts after a text (as spans.js runs it, on a marker). */
function closingCount(processor, addSpecialTokens) {
  if (processor === null) return 0;
  const marker = {};
  const tokens = processor([marker], null, addSpecialTokens).tokens;
  return tokens.length - 1 - tokens.indexOf(marker);
}
