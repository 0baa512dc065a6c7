// Where a long text may be cut, so that tokenizing only what comes before the cut gives exactly
// the whole text's first tokens (ids, tokens, spans, unknown flags): a run keeps at most the
// model's length, so a 10 MB paste need not be tokenized whole (tokenizer.js reads a prefix that
// ends at a cut and holds enough tokens).
//
// A cut lies between two characters, x before it and r after it. It is sound when no step of the
// pipeline @huggingface/tokenizers runs (tokenizer.json's) ties text on both sides together, so
// every piece before the cut is the same whether the text goes on or ends there. Each step is
// followed with the images of x and r, that is, what the steps before made of them:
// - added tokens: no added token holds x's last unit then r's first (raw text), nor their images
//   (normalized text); none strips whitespace across the cut;
// - the normalizer works on characters (NFC and the other forms, Lowercase, StripAccents,
//   BertNormalizer, Precompiled), so x and r are single code points that start a cluster (not a
//   mark, not a Hangul vowel or final, nothing whose compatibility form starts with one), as is
//   the character after r: nothing composes or reorders across the cut, and each image is the
//   step applied to the character alone. Σ is left out: lowercasing it depends on what follows.
//   Strip only trims the ends, and no image ending the prefix is whitespace; Prepend only writes
//   at the start. A Replace pattern must not join the images (joins.js), and may rewrite them;
// - the pre-tokenizer must split there for a model that works per word (WordPiece, WordLevel):
//   Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation and Digits split between two
//   characters of different runs, a Split or ByteLevel pattern where joins.js shows no match can
//   join the images and a match surely starts at r (or pieces are matches); Metaspace rewrites
//   spaces, and ByteLevel writes bytes;
// - when nothing splits there (Llama 2 and Gemma 3, whose BPE reads a whole section, or T5's
//   Unigram after Metaspace), no BPE merge joins a token ending with x's image to one starting
//   with r's (nor, with ignore_merges, a vocabulary token holds the two), or no Unigram piece
//   holds them: then the merges, or the best segmentation, never cross the cut.
// Anything else (FixedLength, a backreference, a lookahead across the cut, an end-of-word
// suffix…) makes the place no cut. The post-processor only adds tokens around the text.
//
// What this leaves: a piece that is an added token whole, fused unknowns (fuse_unk) and
// ignore_merges can change the last token or two before the cut, which tokenizer.js drops
// (MARGIN). Reading the library's internals, this is pinned to it as spans.js is.
import { PatternJoins } from './joins.js';

/** How many of a prefix's last tokens (before its closing ones) a cut may leave unlike the whole text's. */
export const MARGIN = 8;

const MAX_PROBES = 4096; // new pairs of characters judged per search; past it, an unjudged pair is no cut
const MAX_KEPT = 65536; // judged pairs remembered

/** The cuts of one tokenizer: `library`, an @huggingface/tokenizers Tokenizer built from `json`. */
export class Cuts {
  #library;
  #json;
  #judged = new Map(); // x * 0x110000 + r → whether the place between them is a cut
  #patterns = new Map(); // RegExp → PatternJoins
  #raw; // consecutive code units inside the added tokens matched in raw text
  #normalized; // … and in normalized text
  #strips; // a token matched in normalized text strips whitespace beside it
  #mergeLefts = new Map(); // r's first code point → last code points of merges' left parts
  #pieceLefts = new Map(); // r's first code point → code points before it inside vocabulary tokens

  constructor(library, json) {
    this.#library = library;
    this.#json = json;
    this.#raw = new Set();
    this.#normalized = new Set();
    this.#strips = false;
    for (const token of library.added_tokens) {
      const normalized = token.normalized && library.normalizer !== null;
      const content = normalized ? library.normalizer(token.content) : token.content;
      for (let i = 1; i < content.length; i++) (normalized ? this.#normalized : this.#raw).add(content.slice(i - 1, i + 1));
      if (normalized && (token.lstrip || token.rstrip)) this.#strips = true;
    }
  }

  /** The first cut of `text` at or after `from`, or text.length when there is none. */
  after(text, from) {
    let probes = MAX_PROBES;
    for (let c = Math.max(1, from); c < text.length; c++) {
      const r = text.codePointAt(c);
      if (isLowSurrogate(r) && isHighSurrogate(text.charCodeAt(c - 1))) continue; // inside a pair
      const x = c > 1 && isLowSurrogate(text.charCodeAt(c - 1)) && isHighSurrogate(text.charCodeAt(c - 2)) ? text.codePointAt(c - 2) : text.charCodeAt(c - 1);
      const key = x * 0x110000 + r;
      let cut = this.#judged.get(key);
      if (cut === undefined) {
        if (probes-- <= 0) continue;
        if (this.#judged.size >= MAX_KEPT) this.#judged.clear();
        cut = this.#judge(String.fromCodePoint(x), String.fromCodePoint(r));
        this.#judged.set(key, cut);
      }
      const next = c + (r > 0xffff ? 2 : 1);
      if (cut && (next >= text.length || startsCluster(String.fromCodePoint(text.codePointAt(next))))) return c;
    }
    return text.length;
  }

  /** Whether the place between x and r (one code point each) is a cut; see the file's header. */
  #judge(x, r) {
    if (!startsCluster(x) || !startsCluster(r) || /\s/.test(x) || x === 'Σ' || r === 'Σ') return false;
    if (this.#raw.has(x.slice(-1) + r[0])) return false;
    // The images: of x, its last code point; of r, all it became (its first code point is what
    // follows the cut), `open` when a Replace may have run past r (what follows it is unknown).
    const state = { lefts: [x], rights: [{ text: r, open: false }], split: false };
    if (!this.#normalize(this.#json.normalizer, this.#library.normalizer, state)) return false;
    for (const left of state.lefts) {
      if (this.#strips && /\s/.test(left)) return false;
      for (const right of state.rights) if (this.#normalized.has(left.slice(-1) + right.text[0])) return false;
    }
    if (!this.#preTokenize(this.#json.pre_tokenizer, this.#library.pre_tokenizer, state)) return false;
    return state.split || this.#modelKeepsApart(state);
  }

  /** Follows the images through a normalizer step; false when the place is no cut. */
  #normalize(config, step, state) {
    if (config === null || step === null) return true;
    switch (config.type) {
      case 'Sequence':
        return step.normalizers.every((inner, i) => this.#normalize(config.normalizers[i], inner, state));
      case 'Strip':
        return !(config.strip_right && state.lefts.some((l) => /\s/.test(l)));
      case 'Prepend':
        return true;
      case 'Replace':
        return this.#replace(step.pattern, config.content ?? '', state);
      case 'NFC': case 'NFKC': case 'Precompiled':
        if (state.rights.some((r) => r.open)) return false; // it could compose r's image with what follows it
        return mapImages(state, (text) => step.normalize(text));
      case 'NFD': case 'NFKD': case 'Lowercase': case 'StripAccents': case 'BertNormalizer':
        return mapImages(state, (text) => step.normalize(text));
      default:
        return false;
    }
  }

  /** A Replace (normalizer or pre-tokenizer): its matches must not join the images; it may rewrite them. */
  #replace(pattern, content, state) {
    if (pattern === null) return true;
    const joins = this.#joins(pattern);
    const lefts = state.lefts, firsts = state.rights.map((r) => firstOf(r.text));
    if (content.includes('$') || joins.matchesEmpty() || joins.crosses(lefts, firsts)) return false;
    if (joins.canEnd(lefts)) {
      if (content === '' || !startsCluster(lastOf(content))) return false;
      state.lefts = [...lefts, lastOf(content)];
    }
    if (firsts.some((f) => joins.canStart([f]))) {
      if (content === '' || !startsCluster(firstOf(content))) return false;
      const sure = firsts.every((f) => joins.surelyStarts(f));
      state.rights = [...(sure ? [] : state.rights), { text: content, open: true }];
    }
    return true;
  }

  /** Follows the images through a pre-tokenizer step, until one splits at the place; false when it is no cut. */
  #preTokenize(config, step, state) {
    if (config === null || step === null || state.split) return true;
    switch (config.type) {
      case 'Sequence':
        return step.tokenizers.every((inner, i) => this.#preTokenize(config.pretokenizers[i], inner, state));
      case 'BertPreTokenizer': case 'Whitespace': case 'WhitespaceSplit': case 'Punctuation': case 'Digits':
        // Runs of one class: the place splits unless both sides are of the same run.
        state.split = state.lefts.every((l) => state.rights.every((r) => {
          const probe = l + firstOf(r.text);
          return !step.pre_tokenize_text(probe).some((piece) => piece.includes(probe));
        }));
        return true;
      case 'Split': {
        if (step.pattern === null) return false;
        const joins = this.#joins(step.pattern);
        const firsts = state.rights.map((r) => firstOf(r.text));
        if (joins.crosses(state.lefts, firsts)) return false;
        // Pieces are the matches alone (invert), or the matches and the text between them.
        state.split = Boolean(config.invert) || firsts.every((f) => joins.surelyStarts(f));
        return true;
      }
      case 'Replace':
        return this.#replace(step.pattern, config.content ?? '', state);
      case 'Metaspace':
        return mapImages(state, (text) => text.replaceAll(' ', step.str_rep));
      case 'ByteLevel':
        if (step.use_regex) {
          // Its pieces are the pattern's matches, before the bytes are written.
          if (this.#joins(step.pattern).crosses(state.lefts, state.rights.map((r) => firstOf(r.text)))) return false;
          state.split = true;
          return true;
        }
        state.lefts = state.lefts.map((l) => step.byte_encoder[lastByte(l)]);
        state.rights = state.rights.map((r) => ({ text: step.byte_encoder[firstByte(r.text)], open: r.open }));
        return true;
      default:
        return false;
    }
  }

  /** With the place inside a piece: the model's tokens never cross it. */
  #modelKeepsApart({ lefts, rights }) {
    const model = this.#library.model;
    const type = this.#json.model.type;
    if (type === 'BPE' && model.end_of_word_suffix) return false; // it marks the last piece's end, which moves
    if (type !== 'BPE' && type !== 'Unigram') return false; // WordPiece and WordLevel read whole words
    return rights.every((r) => {
      const first = firstOf(r.text);
      const merges = type === 'BPE' ? this.#mergeLeftsOf(first) : null;
      const pieces = type === 'Unigram' || model.ignore_merges ? this.#pieceLeftsOf(first) : null;
      return lefts.every((l) => !merges?.has(l) && !pieces?.has(l));
    });
  }

  #mergeLeftsOf(first) {
    let lefts = this.#mergeLefts.get(first);
    if (!lefts) {
      lefts = new Set();
      for (const [a, b] of this.#library.model.merges) if (firstOf(b) === first) lefts.add(lastOf(a));
      this.#mergeLefts.set(first, lefts);
    }
    return lefts;
  }

  #pieceLeftsOf(first) {
    let lefts = this.#pieceLefts.get(first);
    if (!lefts) {
      lefts = new Set();
      for (const token of this.#library.model.vocab) {
        if (typeof token !== 'string') continue;
        for (let at = token.indexOf(first, 1); at > 0; at = token.indexOf(first, at + 1)) lefts.add(lastOf(token.slice(0, at)));
      }
      this.#pieceLefts.set(first, lefts);
    }
    return lefts;
  }

  #joins(pattern) {
    let joins = this.#patterns.get(pattern);
    if (!joins) this.#patterns.set(pattern, (joins = new PatternJoins(pattern)));
    return joins;
  }
}

/**
 * Rewrites the images by `step` (applied to each alone, as it applies to each in the text); false
 * when one becomes nothing or no longer starts a cluster, so the image could merge with its neighbour.
 */
function mapImages(state, step) {
  const lefts = state.lefts.map((l) => step(l));
  const rights = state.rights.map((r) => ({ text: step(r.text), open: r.open }));
  if (lefts.some((l) => l === '' || !startsCluster(lastOf(l))) || rights.some((r) => r.text === '' || !startsCluster(firstOf(r.text)))) return false;
  state.lefts = lefts.map(lastOf);
  state.rights = rights;
  return true;
}

const MARK = /^[\p{M}\p{Cs}]$/u;
const starts = new Map(); // code point → startsCluster

/**
 * Whether `char` (one code point) starts a cluster no normalization joins to what precedes it:
 * not a mark, not a Hangul vowel or final jamo, and not a character whose compatibility
 * decomposition starts with one (halfwidth ﾞ becomes a combining mark).
 */
export function startsCluster(char) {
  let answer = starts.get(char);
  if (answer === undefined) {
    const first = firstOf(char.normalize('NFKD'));
    const code = first.codePointAt(0);
    answer = !MARK.test(char) && !MARK.test(first) && !((code >= 0x1160 && code <= 0x11ff) || (code >= 0xd7b0 && code <= 0xd7ff));
    if (starts.size < MAX_KEPT) starts.set(char, answer);
  }
  return answer;
}

const firstOf = (text) => String.fromCodePoint(text.codePointAt(0));
const lastOf = (text) => (text.length > 1 && isLowSurrogate(text.charCodeAt(text.length - 1)) && isHighSurrogate(text.charCodeAt(text.length - 2)) ? text.slice(-2) : text.slice(-1));
const isHighSurrogate = (unit) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit) => unit >= 0xdc00 && unit <= 0xdfff;
const encoder = new TextEncoder();
const firstByte = (text) => encoder.encode(firstOf(text))[0];
const lastByte = (text) => encoder.encode(lastOf(text)).at(-1);
