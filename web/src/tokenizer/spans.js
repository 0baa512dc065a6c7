// Where each token of an encoding came from in the text as typed, so its label can be that slice:
// "CAT" rather than the normalizer's "cat", "cafe\u0301" rather than [UNK], "ing" for the piece
// "##ing", " cat" for GPT-2's "Ġcat". @huggingface/tokenizers gives no offsets, so this replays its
// pipeline on the same text with the library's own parts (normalizer, pre-tokenizer, model and
// post-processor), carrying for every character of every intermediate string the span of the
// original text it came from:
//
//   added tokens split the text → normalizer → added tokens split again → pre-tokenizer → model
//   → post-processor
//
// Each step that rewrites text (NFC, lowercasing, accent stripping, byte-level mapping, Metaspace,
// Replace…) is followed either exactly, for the steps whose rewriting is known, or by normalizing
// the text one cluster (a character with its combining marks) at a time and checking that the
// pieces rejoin to what the library made of the whole. The replayed tokens are compared with the
// library's own; on any difference the caller gets null and shows the tokens themselves.
//
// It never decides ids: those are the library's. A span is [start, end) in UTF-16 units; tokens
// that no text made (the post-processor's [CLS], a prefix space the pre-tokenizer inserts) have
// none. Tokens split from one character (a byte-level BPE splitting an emoji) share its span.
//
// The replay reads the library's internals, not only its API (it is pinned to 0.2.0 for that):
// the Tokenizer's normalizer, pre_tokenizer, model, post_processor, added_tokens_map,
// splitter_unnormalized and splitter_normalized; a Sequence's normalizers and tokenizers; each
// step's normalize and pre_tokenize_text, a Replace's or ByteLevel's compiled pattern, ByteLevel's
// add_prefix_space, use_regex and byte_encoder, Metaspace's str_rep; and the model's encode, bpe,
// tokens_to_ids, unk_token, unk_token_id, fuse_unk, byte_fallback, ignore_merges,
// end_of_word_suffix, continuing_subword_suffix and (WordPiece) config.continuing_subword_prefix.
// When the replay disagrees with the library (a pipeline it does not follow, or a library that
// changed), spans() answers null and the labels fall back to the library's own token strings.

const INSERTED = -1; // `from` of a character that no original character made

/**
 * Replays one library Tokenizer (`library`) built from `json`; spans(text, tokens) does the work.
 * Added tokens are found with the library's own splitters and added_tokens_map (each token's text,
 * and its normalized text, to the token with its lstrip / rstrip), so they match as the library's do.
 */
export class TokenSpans {
  #library;
  #json;

  constructor(library, json) {
    this.#library = library;
    this.#json = json;
  }

  /**
   * The span of each of `tokens` (the library's encoding of `text`) in `text`, or null for a token
   * that no text made; the whole answer is null if the replay does not give the same tokens.
   */
  spans(text, tokens) {
    const added = this.#library.added_tokens_map;
    const own = [];
    const sections = this.#split(this.#library.splitter_unnormalized, text);
    if (!sections) return null;
    for (let index = 0; index < sections.length; index++) {
      const { start, end } = sections[index];
      if (start >= end) continue;
      const section = text.slice(start, end);
      if (added.has(section)) {
        own.push({ token: section, span: [start, end] });
        continue;
      }
      const normalized = this.#normalize(original(section, start));
      if (normalized.text === '') continue;
      const pieces = this.#split(this.#library.splitter_normalized, normalized.text);
      if (!pieces) return null;
      for (const { start: a, end: b } of pieces) {
        if (a >= b) continue;
        const piece = slice(normalized, a, b);
        if (added.has(piece.text)) own.push({ token: piece.text, span: union(piece, 0, piece.text.length) });
        else for (const token of this.#tokenize(this.#preTokenize(piece, index))) own.push(token); // a spread of a long paste's tokens would overflow the stack
      }
    }
    const all = this.#postProcess(own);
    if (all.length !== tokens.length || all.some((t, i) => t.token !== tokens[i])) return null;
    return all.map((t) => t.span);
  }

  /**
   * `text` split at added tokens by the library's `splitter` (a DictionarySplitter: the longest
   * token at each position), as [start, end) pieces, after the trimming beside lstrip / rstrip
   * tokens; null if the pieces do not rejoin to the text, so offsets cannot be their lengths' sums.
   */
  #split(splitter, text) {
    let at = 0;
    const pieces = splitter.split(text).map((piece) => ({ start: at, end: (at += piece.length) }));
    return at === text.length ? this.#strip(pieces, text) : null;
  }

  /** The library trims the text beside an added token marked lstrip / rstrip. */
  #strip(pieces, text) {
    pieces.forEach((piece, i) => {
      const entry = this.#library.added_tokens_map.get(text.slice(piece.start, piece.end));
      if (!entry) return;
      const before = pieces[i - 1], after = pieces[i + 1];
      if (entry.lstrip && before) before.end = before.start + text.slice(before.start, before.end).trimEnd().length;
      if (entry.rstrip && after) after.start = after.end - text.slice(after.start, after.end).trimStart().length;
    });
    return pieces;
  }

  #normalize(piece) {
    const normalizer = this.#library.normalizer;
    if (normalizer === null) return piece;
    const expected = normalizer(piece.text);
    const replayed = normalizeStep(this.#json.normalizer, normalizer, piece);
    return replayed.text === expected ? replayed : byClusters(piece, expected, (s) => normalizer(s));
  }

  /**
   * Pre-tokens as pieces with spans. Each step's texts are the library step's own output, so they
   * are the library's pre-tokens; only their spans are worked out here.
   */
  #preTokenize(piece, sectionIndex) {
    const preTokenizer = this.#library.pre_tokenizer;
    return preTokenizer === null ? [piece] : preTokenizeStep(this.#json.pre_tokenizer, preTokenizer, [piece], { section_index: sectionIndex });
  }

  /** The model's tokens for a list of pre-tokens, each with its span. */
  #tokenize(pieces) {
    const model = this.#library.model;
    const tokens = [];
    for (const piece of pieces) {
      const produced = model.encode([piece.text]);
      const ranges = modelRanges(this.#json.model.type, model, piece.text, produced);
      produced.forEach((token, i) => {
        const [a, b] = ranges[i];
        tokens.push({ token, span: union(piece, a, b) });
      });
    }
    return model.fuse_unk ? fuseUnknown(tokens, model) : tokens;
  }

  /** Runs the post-processor on markers, so the tokens it adds are told from the text's. */
  #postProcess(own) {
    const processor = this.#library.post_processor;
    if (processor === null) return own;
    const markers = own.map((entry) => ({ entry }));
    return processor(markers, null, true).tokens.map((item) => (typeof item === 'string' ? { token: item, span: null } : item.entry));
  }
}

// A piece is { text, from, to }: for each UTF-16 unit of text, the span [from, to) of the
// original text it came from (from = INSERTED for text no original character made), in
// Int32Arrays, since a long paste makes many pieces.

function original(text, offset) {
  const from = new Int32Array(text.length), to = new Int32Array(text.length);
  for (let i = 0; i < text.length; i++) {
    from[i] = offset + i;
    to[i] = offset + i + 1;
  }
  return { text, from, to };
}

function slice(piece, a, b) {
  return { text: piece.text.slice(a, b), from: piece.from.subarray(a, b), to: piece.to.subarray(a, b) }; // pieces are never written to
}

/** The original span of piece.text[a, b), or null if only inserted text lies there. */
function union(piece, a, b) {
  let start = Infinity, end = -Infinity;
  for (let i = a; i < b; i++) {
    if (piece.from[i] === INSERTED) continue;
    start = Math.min(start, piece.from[i]);
    end = Math.max(end, piece.to[i]);
  }
  return start < end ? [start, end] : null;
}

/** `text`, every unit of which came from the whole of `piece`. */
function spread(text, piece) {
  const span = union(piece, 0, piece.text.length);
  return { text, from: new Int32Array(text.length).fill(span ? span[0] : INSERTED), to: new Int32Array(text.length).fill(span ? span[1] : INSERTED) };
}

/**
 * Builds a piece from parts, each either [text, span | null] (text made from `span` of the
 * original, or inserted) or [piece, a, b] (piece[a, b) kept as it is, with its spans).
 */
function assemble(parts) {
  let length = 0;
  for (const part of parts) length += typeof part[0] === 'string' ? part[0].length : part[2] - part[1];
  const from = new Int32Array(length), to = new Int32Array(length);
  const texts = [];
  let at = 0;
  for (const part of parts) {
    if (typeof part[0] === 'string') {
      const [text, span] = part;
      texts.push(text);
      from.fill(span ? span[0] : INSERTED, at, at + text.length);
      to.fill(span ? span[1] : INSERTED, at, at + text.length);
      at += text.length;
    } else {
      const [piece, a, b] = part;
      texts.push(piece.text.slice(a, b));
      from.set(piece.from.subarray(a, b), at);
      to.set(piece.to.subarray(a, b), at);
      at += b - a;
    }
  }
  return { text: texts.join(''), from, to };
}

/** piece[a, b) as one part, kept with its spans. */
function copyParts(piece, a, b, parts) {
  if (a < b) parts.push([piece, a, b]);
}

function normalizeStep(config, normalizer, piece) {
  if (!normalizer) return piece;
  switch (config.type) {
    case 'Sequence':
      return normalizer.normalizers.reduce((p, step, i) => normalizeStep(config.normalizers[i], step, p), piece);
    case 'Strip': {
      const text = piece.text;
      const out = normalizer.normalize(text);
      const start = config.strip_left ? text.length - text.trimStart().length : 0;
      return text.slice(start, start + out.length) === out ? slice(piece, start, start + out.length) : byClusters(piece, out, (s) => normalizer.normalize(s));
    }
    case 'Prepend': {
      const out = normalizer.normalize(piece.text);
      if (!out.endsWith(piece.text)) return byClusters(piece, out, (s) => normalizer.normalize(s));
      const parts = [[out.slice(0, out.length - piece.text.length), null]];
      copyParts(piece, 0, piece.text.length, parts);
      return assemble(parts);
    }
    case 'Replace':
      return replaced(piece, normalizer.pattern, config.content ?? '', normalizer.normalize(piece.text)) ?? byClusters(piece, normalizer.normalize(piece.text), (s) => normalizer.normalize(s));
    default:
      return byClusters(piece, normalizer.normalize(piece.text), (s) => normalizer.normalize(s));
  }
}

/**
 * A Replace step followed exactly: text between matches is kept, each match becomes the content,
 * which came from the match. Null when the content has $ substitutions or the result differs.
 */
function replaced(piece, pattern, content, expected) {
  if (pattern === null) return piece;
  if (content.includes('$')) return null;
  const parts = [];
  let at = 0;
  for (const match of piece.text.matchAll(pattern)) {
    copyParts(piece, at, match.index, parts);
    const span = union(piece, match.index, match.index + match[0].length);
    parts.push([content, span]);
    at = match.index + match[0].length;
  }
  copyParts(piece, at, piece.text.length, parts);
  const out = assemble(parts);
  return out.text === expected ? out : null;
}

/**
 * Maps a step's output `expected` back onto `piece` without knowing the step: `step` applied to
 * each cluster (a character and its combining marks, or a Hangul syllable's jamo) must rejoin to
 * `expected`, or at least give as many units (lowercasing Σ depends on the next letter, not its
 * length); failing both, clusters are merged until their output lines up with `expected`.
 * A cluster the step leaves as it was keeps its characters' own spans, as a piece the step leaves
 * whole does: so a cluster's spans do not depend on the rest of the piece, and the start of a
 * long text gets the spans the whole text gives it (cut.js).
 */
function byClusters(piece, expected, step) {
  if (expected === piece.text) return piece;
  const units = clusters(piece.text);
  const outputs = units.map(([a, b]) => step(piece.text.slice(a, b)));
  if (outputs.join('') === expected || outputs.reduce((n, o) => n + o.length, 0) === expected.length) {
    let at = 0;
    return assemble(units.map(([a, b], k) => {
      const part = expected.slice(at, at + outputs[k].length);
      at += outputs[k].length;
      return part === piece.text.slice(a, b) ? [piece, a, b] : [part, union(piece, a, b)];
    }));
  }
  const parts = [];
  let at = 0, k = 0;
  while (k < units.length) {
    let matched = false;
    for (let m = k; m < units.length && m < k + 32; m++) {
      const text = piece.text.slice(units[k][0], units[m][1]);
      const out = step(text);
      if (expected.startsWith(out, at)) {
        parts.push(out === text ? [piece, units[k][0], units[m][1]] : [out, union(piece, units[k][0], units[m][1])]);
        at += out.length;
        k = m + 1;
        matched = true;
        break;
      }
    }
    if (!matched) {
      parts.push([expected.slice(at), union(piece, units[k][0], piece.text.length)]);
      at = expected.length;
      break;
    }
  }
  if (at < expected.length) parts.push([expected.slice(at), union(piece, 0, piece.text.length)]);
  return assemble(parts);
}

/** [start, end) of each cluster: a code point with the combining marks and Hangul jamo after it. */
function clusters(text) {
  const out = [];
  let start = 0;
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i);
    const size = code > 0xffff ? 2 : 1;
    if (i > 0 && !joinsPrevious(code)) {
      out.push([start, i]);
      start = i;
    }
    i += size;
  }
  if (text.length > 0) out.push([start, text.length]);
  return out;
}

const MARK = /^\p{M}$/u;

function joinsPrevious(code) {
  // Hangul vowel and final jamo compose with what precedes them under NFC; marks compose or reorder.
  return (code >= 0x1160 && code <= 0x11ff) || (code >= 0xd7b0 && code <= 0xd7ff) || MARK.test(String.fromCodePoint(code));
}

function preTokenizeStep(config, preTokenizer, pieces, options) {
  if (!preTokenizer) return pieces;
  if (config.type === 'Sequence') {
    return preTokenizer.tokenizers.reduce((list, step, i) => preTokenizeStep(config.pretokenizers[i], step, list, options), pieces);
  }
  return pieces.flatMap((piece) => {
    const outputs = preTokenizer.pre_tokenize_text(piece.text, options);
    switch (config.type) {
      case 'ByteLevel':
        return byteLevel(piece, preTokenizer, outputs) ?? outputs.map((text) => spread(text, piece));
      case 'Metaspace':
        return metaspace(piece, preTokenizer, outputs) ?? outputs.map((text) => spread(text, piece));
      case 'Replace': {
        const out = replaced(piece, preTokenizer.pattern, config.content ?? '', outputs[0]);
        return out && outputs.length === 1 ? [out] : outputs.map((text) => spread(text, piece));
      }
      default:
        return substrings(piece, outputs);
    }
  });
}

/** Pre-tokenizers that split (Split, WhitespaceSplit, BertPreTokenizer, Digits…) give substrings, in order. */
function substrings(piece, outputs) {
  let at = 0;
  return outputs.map((text) => {
    const found = piece.text.indexOf(text, at);
    if (found < 0) return spread(text, piece);
    at = found + text.length;
    return slice(piece, found, at);
  });
}

/**
 * GPT-2's byte-level step: an optional prefix space (inserted), the split by its regex, then each
 * UTF-8 byte of a character written as one printable character, which keeps that character's span.
 */
function byteLevel(piece, step, outputs) {
  let source = piece;
  if (step.add_prefix_space && !piece.text.startsWith(' ')) source = assemble([[' ', null], [piece, 0, piece.text.length]]);
  const matches = step.use_regex ? [...source.text.matchAll(step.pattern)] : [{ 0: source.text, index: 0 }];
  if (matches.length !== outputs.length) return null;
  const encoder = new TextEncoder();
  const out = matches.map((match) => {
    const parts = [];
    for (let i = match.index; i < match.index + match[0].length;) {
      const char = String.fromCodePoint(source.text.codePointAt(i));
      const span = union(source, i, i + char.length);
      for (const byte of encoder.encode(char)) parts.push([step.byte_encoder[byte], span]);
      i += char.length;
    }
    return assemble(parts);
  });
  return out.every((p, i) => p.text === outputs[i]) ? out : null;
}

/** Metaspace: each space becomes the replacement (▁), and a replacement may be prefixed (inserted). */
function metaspace(piece, step, outputs) {
  const replacement = step.str_rep;
  if (outputs.length !== 1 || typeof replacement !== 'string') return null;
  const parts = [];
  let at = 0;
  for (let i = piece.text.indexOf(' '); i >= 0; i = piece.text.indexOf(' ', i + 1)) {
    copyParts(piece, at, i, parts);
    parts.push([replacement, union(piece, i, i + 1)]);
    at = i + 1;
  }
  copyParts(piece, at, piece.text.length, parts);
  const body = assemble(parts);
  if (outputs[0] === body.text) return [body];
  if (outputs[0] === replacement + body.text) return [assemble([[replacement, null], [body, 0, body.text.length]])];
  return null;
}

/**
 * Which units of a pre-token each of the model's tokens for it covers, as [a, b) ranges. A token
 * the model cannot place (WordPiece's [UNK] for a whole word) covers the whole pre-token.
 */
function modelRanges(type, model, text, produced) {
  const whole = () => produced.map(() => [0, text.length]);
  let surfaces;
  if (type === 'WordPiece') {
    if (produced.length === 1) return whole();
    const prefix = model.config.continuing_subword_prefix;
    if (!produced.slice(1).every((t) => t.startsWith(prefix))) return whole();
    surfaces = produced.map((t, i) => (i === 0 ? t : t.slice(prefix.length)));
  } else if (type === 'BPE') {
    return bpeRanges(model, text, produced) ?? whole();
  } else {
    surfaces = produced; // Unigram's pieces, or WordLevel's whole word, are the text itself
  }
  return rangesOf(surfaces, text) ?? whole();
}

/** Consecutive ranges of `surfaces` in `text`, if they rejoin to it. */
function rangesOf(surfaces, text) {
  if (surfaces.join('') !== text) return null;
  let at = 0;
  return surfaces.map((s) => [at, (at += s.length)]);
}

/**
 * BPE, replayed piece by piece as the library's encode does: a piece in the vocabulary is one
 * token; otherwise its bytes (byte_fallback) or the unknown token, or nothing at all.
 */
function bpeRanges(model, text, produced) {
  if (model.ignore_merges && model.tokens_to_ids.has(text)) return produced.length === 1 ? [[0, text.length]] : null;
  const pieces = model.bpe(text);
  const last = pieces.length - 1;
  const surfaces = pieces.map((piece, i) => {
    let surface = piece;
    if (i < last && model.continuing_subword_suffix && surface.endsWith(model.continuing_subword_suffix)) {
      surface = surface.slice(0, -model.continuing_subword_suffix.length);
    }
    if (i === last && model.end_of_word_suffix && surface.endsWith(model.end_of_word_suffix)) {
      surface = surface.slice(0, -model.end_of_word_suffix.length);
    }
    return surface;
  });
  const ranges = rangesOf(surfaces, text);
  if (!ranges) return null;
  const tokens = [], out = [];
  const encoder = new TextEncoder();
  pieces.forEach((piece, i) => {
    if (model.tokens_to_ids.has(piece)) {
      tokens.push(piece);
      out.push(ranges[i]);
      return;
    }
    if (model.byte_fallback) {
      const bytes = [];
      const [a, b] = ranges[i];
      for (let j = a; j < b;) {
        const char = String.fromCodePoint(text.codePointAt(j));
        for (const byte of encoder.encode(char)) bytes.push([byte, [j, j + char.length]]);
        j += char.length;
      }
      const names = bytes.map(([byte]) => `<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
      if (names.every((name) => model.tokens_to_ids.has(name))) {
        tokens.push(...names);
        out.push(...bytes.map(([, range]) => range));
        return;
      }
    }
    if (model.unk_token != null) {
      tokens.push(model.unk_token);
      out.push(ranges[i]);
    }
  });
  return tokens.length === produced.length && tokens.every((t, i) => t === produced[i]) ? out : null;
}

/** The library's fuse_unk: a run of unknown tokens becomes one, covering all of their text. */
function fuseUnknown(tokens, model) {
  const unknown = (token) => (model.tokens_to_ids.get(token) ?? model.unk_token_id) === model.unk_token_id;
  const out = [];
  for (let i = 0; i < tokens.length; i++) {
    const previous = out.at(-1);
    if (previous && i > 0 && unknown(tokens[i].token) && unknown(tokens[i - 1].token) && previous.fusing) {
      if (model.tokens_to_ids.get(previous.token) !== model.unk_token_id) previous.token += tokens[i].token;
      previous.span = joined(previous.span, tokens[i].span);
      continue;
    }
    out.push({ token: tokens[i].token, span: tokens[i].span, fusing: unknown(tokens[i].token) });
  }
  return out.map(({ token, span }) => ({ token, span }));
}

function joined(a, b) {
  if (!a || !b) return a ?? b;
  return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
}
