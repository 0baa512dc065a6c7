// SentencePiece model files (spiece.model, Marian's source.spm and target.spm) read into the
// tokenizer.json a Unigram model becomes in transformers' SpmConverter, so the one tokenizer
// library reads them as it reads every other model's tokenizer. The file is a serialized
// ModelProto (sentencepiece_model.proto): a small reader of the protobuf wire format takes the
// fields a converter needs and checks the shape of everything else, as the file is untrusted.
//
// Why a converter and not a SentencePiece build for the web: the npm packages that wrap
// SentencePiece in WASM (sentencepiece-js and its forks) add a second tokenizer runtime of their
// own beside @huggingface/tokenizers, and Hugging Face converts these files the same way for its
// fast tokenizers. What it does not read: BPE, WORD or CHAR models, byte fallback and
// user-defined symbols, which no T5 or Marian model has; they are refused by name.

export const MAX_MODEL_BYTES = 16 * 2 ** 20; // T5's spiece.model is 0.8 MB, opus-mt's .spm files 0.8 MB
const METASPACE = '\u2581'; // "▁", SentencePiece's stand-in for a space
const NORMAL = 1, UNKNOWN = 2, CONTROL = 3, USER_DEFINED = 4, UNUSED = 5, BYTE = 6; // SentencePiece.Type
const UNIGRAM = 1; // TrainerSpec.ModelType

// The fields read, by message: number → [name, kind, default]. Others are checked for shape and skipped.
const SCHEMAS = {
  ModelProto: { 1: ['pieces', 'repeated:SentencePiece', null], 2: ['trainer', 'message:TrainerSpec', null], 3: ['normalizer', 'message:NormalizerSpec', null] },
  SentencePiece: { 1: ['piece', 'string', ''], 2: ['score', 'float', 0], 3: ['type', 'enum', NORMAL] },
  TrainerSpec: { 3: ['modelType', 'enum', UNIGRAM], 35: ['byteFallback', 'bool', false], 40: ['unkId', 'int32', 0] },
  NormalizerSpec: { 2: ['charsmap', 'bytes', new Uint8Array(0)], 3: ['addDummyPrefix', 'bool', true] },
};
const WIRE = { string: 2, bytes: 2, float: 5, enum: 0, int32: 0, bool: 0 };

class Reader {
  constructor(bytes, name) {
    this.bytes = bytes;
    this.name = name;
  }

  fail(message) {
    throw new Error(`${this.name} is not a SentencePiece model: ${message}`);
  }

  // A varint at `pos` before `end`: [value (a Number: any field this reader keeps fits in 53 bits), next].
  varint(pos, end) {
    let value = 0, scale = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= end) this.fail(`a number at byte ${pos} runs past the end of its message`);
      const byte = this.bytes[pos++];
      value += (byte & 0x7f) * scale;
      if (!(byte & 0x80)) return [value, pos];
      scale *= 128;
    }
    return this.fail(`a number ending at byte ${pos} is longer than 10 bytes`);
  }

  // The fields of the message in [start, end): [number, wire, value] with value a Number (varint),
  // or [from, to) of its bytes.
  * fields(start, end) {
    let pos = start;
    while (pos < end) {
      let key;
      [key, pos] = this.varint(pos, end);
      const number = Math.floor(key / 8), wire = key % 8;
      if (number === 0) this.fail(`field number 0 at byte ${pos}`);
      if (wire === 0) {
        let value;
        [value, pos] = this.varint(pos, end);
        yield [number, wire, value];
      } else if (wire === 1 || wire === 5 || wire === 2) {
        let size = wire === 1 ? 8 : 4;
        if (wire === 2) [size, pos] = this.varint(pos, end);
        if (size > end - pos) this.fail(`field ${number}'s ${size} bytes at byte ${pos} run past the end of its message`);
        yield [number, wire, [pos, pos + size]];
        pos += size;
      } else {
        this.fail(`field ${number} at byte ${pos} has wire type ${wire}`);
      }
    }
  }

  message(name, start, end, depth = 0) {
    if (depth > 3) this.fail('messages nest deeper than sentencepiece_model.proto\'s');
    const schema = SCHEMAS[name];
    const out = {};
    for (const [field, kind, fallback] of Object.values(schema)) out[field] = kind.startsWith('repeated:') ? [] : fallback;
    for (const [number, wire, value] of this.fields(start, end)) {
      const known = schema[number];
      if (!known) continue;
      const [field, kind] = known;
      const want = kind.includes(':') ? 2 : WIRE[kind];
      if (wire !== want) this.fail(`${name}.${field} (field ${number}) has wire type ${wire}, expected ${want}`);
      if (kind.includes(':')) {
        const nested = this.message(kind.split(':')[1], value[0], value[1], depth + 1);
        if (kind.startsWith('repeated:')) out[field].push(nested);
        else out[field] = nested;
      } else if (kind === 'string') {
        try {
          out[field] = new TextDecoder('utf-8', { fatal: true }).decode(this.bytes.subarray(value[0], value[1]));
        } catch {
          this.fail(`${name}.${field} at byte ${value[0]} is not UTF-8 text`);
        }
      } else if (kind === 'bytes') {
        out[field] = this.bytes.slice(value[0], value[1]);
      } else if (kind === 'float') {
        out[field] = new DataView(this.bytes.buffer, this.bytes.byteOffset + value[0], 4).getFloat32(0, true);
      } else if (kind === 'bool') {
        out[field] = value !== 0;
      } else {
        // int32 and enums: a negative value is written as a 10-byte two's complement.
        out[field] = value >= 2 ** 63 ? value - 2 ** 64 : value;
      }
    }
    return out;
  }
}

/**
 * A SentencePiece model's { pieces: [{ piece, score, type }], unkId, charsmap, addDummyPrefix },
 * checked: a unigram model without byte fallback, at least one piece, each a non-empty string of
 * a known type, and its unknown piece where unk_id says. `name` labels the messages.
 */
export function readSentencePiece(bytes, name) {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${name} must be bytes`);
  if (bytes.byteLength > MAX_MODEL_BYTES) {
    throw new RangeError(`${name} has ${bytes.byteLength} bytes, above the limit of ${MAX_MODEL_BYTES} (real SentencePiece models are about 1 MB)`);
  }
  const reader = new Reader(bytes, name);
  const proto = reader.message('ModelProto', 0, bytes.byteLength);
  const trainer = proto.trainer ?? reader.message('TrainerSpec', 0, 0);
  const normalizer = proto.normalizer ?? reader.message('NormalizerSpec', 0, 0);
  if (trainer.modelType !== UNIGRAM) throw new Error(`${name} is a SentencePiece model of type ${trainer.modelType}; multihead reads unigram models (type 1), as T5's and Marian's are`);
  if (trainer.byteFallback) throw new Error(`${name} uses byte fallback, which multihead reads only from a tokenizer.json`);
  const pieces = proto.pieces;
  if (pieces.length === 0) reader.fail('it has no pieces');
  pieces.forEach((p, i) => {
    if (p.piece === '' || ![NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE].includes(p.type) || !Number.isFinite(p.score)) {
      reader.fail(`piece ${i} (${JSON.stringify(p.piece.slice(0, 20))}) is empty, has an unknown type ${p.type} or a score that is not a number`);
    }
    if (p.type === USER_DEFINED || p.type === BYTE) throw new Error(`${name} has user-defined or byte pieces (piece ${i}), which multihead does not read from a SentencePiece model`);
  });
  const unkId = trainer.unkId;
  if (!(unkId >= 0 && unkId < pieces.length) || pieces[unkId].type !== UNKNOWN) reader.fail(`unk_id ${unkId} does not name its unknown piece`);
  return { pieces, unkId, charsmap: normalizer.charsmap, addDummyPrefix: normalizer.addDummyPrefix, special: pieces.flatMap((p, i) => (p.type === CONTROL || p.type === UNKNOWN ? [i] : [])) };
}

function base64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

function addedToken(id, content) {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/**
 * The tokenizer.json SpmConverter makes of a unigram model: its pieces and scores in id order,
 * the precompiled charsmap, then the trailing space stripped and runs of spaces made one "▁",
 * Metaspace before and after, its control and unknown pieces as special added tokens. With
 * `sentinels` (T5: tokenizer_config.json's extra_ids), that many <extra_id_N> follow the pieces,
 * counting down, and the post-processor puts </s> after a text, as T5Converter's does.
 */
export function sentencePieceTokenizerJson(model, { sentinels = 0, closing = null } = {}) {
  const vocab = model.pieces.map((p) => [p.piece, p.score]);
  for (let i = sentinels - 1; i >= 0; i--) vocab.push([`<extra_id_${i}>`, 0]);
  const ids = new Map(vocab.map(([piece], i) => [piece, i]));
  if (ids.size !== vocab.length) throw new Error('the SentencePiece model\'s pieces (and sentinels) are not all different');
  const added = [...model.special, ...Array.from({ length: sentinels }, (_, k) => model.pieces.length + k)];
  const normalizers = [{ type: 'Strip', strip_left: false, strip_right: true }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: METASPACE }];
  if (model.charsmap.length) normalizers.unshift({ type: 'Precompiled', precompiled_charsmap: base64(model.charsmap) });
  const metaspace = { type: 'Metaspace', replacement: METASPACE, prepend_scheme: model.addDummyPrefix ? 'always' : 'never', split: true };
  let postProcessor = null;
  if (closing !== null) {
    if (!ids.has(closing)) throw new Error(`the SentencePiece model has no ${closing} piece to end a text with`);
    const sequence = (s) => ({ Sequence: { id: s, type_id: 0 } }), end = { SpecialToken: { id: closing, type_id: 0 } };
    postProcessor = {
      type: 'TemplateProcessing', single: [sequence('A'), end], pair: [sequence('A'), end, sequence('B'), end],
      special_tokens: { [closing]: { id: closing, ids: [ids.get(closing)], tokens: [closing] } },
    };
  }
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: added.map((i) => addedToken(i, vocab[i][0])),
    normalizer: { type: 'Sequence', normalizers }, pre_tokenizer: metaspace, post_processor: postProcessor, decoder: metaspace,
    model: { type: 'Unigram', unk_id: model.unkId, vocab, byte_fallback: false },
  };
}
