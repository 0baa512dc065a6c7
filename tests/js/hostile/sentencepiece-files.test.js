// SentencePiece model files (spiece.model, Marian's source.spm and target.spm) and Marian's
// vocab.json are untrusted input: every broken, truncated, oversized or hostile one gets an
// error that names the file, never a hang, a crash or a tokenizer that silently differs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readSentencePiece } from '../../../web/src/tokenizer/sentencepiece.js';
import { loadTokenizer } from '../../../web/src/tokenizer/tokenizer.js';

const DIR = fileURLToPath(new URL('../../fixtures/seq2seq/', import.meta.url));
const real = new Uint8Array(readFileSync(`${DIR}t5-small/spiece.model`));
const marian = (name) => new Uint8Array(readFileSync(`${DIR}marian/${name}`));
const vocab = JSON.parse(readFileSync(`${DIR}marian/vocab.json`, 'utf8'));

// A protobuf field: key, then its varint or its length and bytes.
const varint = (n) => { const out = []; do { out.push((n % 128) + (n >= 128 ? 128 : 0)); n = Math.floor(n / 128); } while (n > 0); return out; };
const field = (number, wire, body) => Uint8Array.from([...varint(number * 8 + wire), ...(wire === 2 ? varint(body.length) : []), ...body]);
const join = (...parts) => Uint8Array.from(parts.flatMap((p) => [...p]));
const text = (s) => [...new TextEncoder().encode(s)];
const piece = (s, type = 1) => field(1, 2, [...field(1, 2, text(s)), ...field(2, 5, [0, 0, 128, 191]), ...field(3, 0, varint(type))]);

test('a real model reads, its pieces and unknown piece as the file says', () => {
  const model = readSentencePiece(real, 'spiece.model');
  expect(model.pieces[model.unkId]).toMatchObject({ piece: '<unk>', type: 2 });
  expect(model.charsmap.length).toBeGreaterThan(1000);
});

test.each([
  ['truncated in a piece', real.subarray(0, 101), /spiece.model is not a SentencePiece model: .* runs? past the end of its message/],
  ['an 11-byte number', Uint8Array.from([8, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 1]), /is longer than 10 bytes/],
  ['field number 0', Uint8Array.from([0, 0]), /field number 0/],
  ['a group (wire type 3)', Uint8Array.from([11]), /has wire type 3/],
  ['pieces of the wrong wire type', field(1, 0, [5]), /ModelProto.pieces \(field 1\) has wire type 0, expected 2/],
  ['no pieces', new Uint8Array(0), /it has no pieces/],
  ['a piece that is not UTF-8', field(1, 2, field(1, 2, [0xff, 0xfe])), /SentencePiece.piece at byte \d+ is not UTF-8 text/],
  ['no unknown piece', join(piece('a'), piece('b')), /unk_id 0 does not name its unknown piece/],
  ['a BPE model', join(piece('<unk>', 2), field(2, 2, field(3, 0, [2]))), /is a SentencePiece model of type 2; multihead reads unigram models/],
  ['byte fallback', join(piece('<unk>', 2), field(2, 2, field(35, 0, [1]))), /uses byte fallback/],
  ['a byte piece', join(piece('<unk>', 2), piece('<0x41>', 6)), /user-defined or byte pieces \(piece 1\)/],
  ['an empty piece', join(piece('<unk>', 2), piece('')), /piece 1 .* is empty/],
])('%s is refused by name', (_, bytes, message) => {
  expect(() => readSentencePiece(bytes, 'spiece.model')).toThrow(message);
});

test('a file past 16 MiB is refused before it is read', () => {
  expect(() => readSentencePiece(new Uint8Array(16 * 2 ** 20 + 1), 'source.spm')).toThrow(RangeError);
});

test('random bytes never crash or hang the reader: each is read or refused with an Error', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 500; i++) {
    const bytes = Uint8Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256));
    // A real file with some bytes changed, and pure noise.
    const changed = real.slice(0, 4000);
    for (let k = 0; k < 4; k++) changed[Math.floor(random() * changed.length)] = Math.floor(random() * 256);
    for (const input of [bytes, changed]) {
      try {
        readSentencePiece(input, 'spiece.model');
      } catch (error) {
        expect(error).toBeInstanceOf(Error);
        expect(error.message).toMatch(/spiece\.model/);
      }
    }
  }
});

test.each([
  ['an id that is not an integer', { ...vocab, '▁x': 1.5 }, /vocab.json's id of "▁x" must be an integer/],
  ['two pieces with one id', { ...vocab, '▁x': 0 }, /that no other piece has, got 0/],
  ['no </s>', Object.fromEntries(Object.entries(vocab).filter(([p]) => p !== '</s>')), 'vocab.json has no </s>'],
  ['an array', [1, 2], 'vocab.json must be an object'],
])('Marian\'s vocab.json with %s is refused by name', async (_, bad, message) => {
  await expect(loadTokenizer({ source: marian('source.spm'), target: marian('target.spm'), vocab: bad })).rejects.toThrow(message);
});

test('Marian\'s tokenizer maps pieces through vocab.json, an unknown piece to <unk>, and ends a source with </s>', async () => {
  const tokenizer = await loadTokenizer({ source: marian('source.spm'), target: marian('target.spm'), vocab });
  const { ids, tokens, unknown } = tokenizer.encode('The old river');
  expect(ids[ids.length - 1]).toBe(vocab['</s>']);
  expect(tokens[tokens.length - 1]).toBe('</s>');
  expect(ids.slice(0, -1).every((id) => id !== vocab['<unk>'])).toBe(true);
  const strange = tokenizer.encode('Ωmega');
  expect(strange.unknown.some(Boolean)).toBe(true);
  expect(unknown.every((u) => !u)).toBe(true);
  expect(tokenizer.decode(tokenizer.encodeTarget('Der alte Fluss', { addSpecialTokens: false }).ids)).toBe('Der alte Fluss');
});

test('a character source.spm lacks is looked up in vocab.json by its text, as MarianTokenizer does, and only then is <unk>', async () => {
  // The English source.spm knows neither "F" nor "ß"; vocab.json has both (target.spm's pieces).
  // SentencePiece gives each unknown piece as its text, which MarianTokenizer looks up: "Fluß" is
  // "▁", "F", "l", "u", "ß" in vocab.json's ids. Found in a real opus-mt vocab.json: an emoji only
  // the target side had became <unk> here and its own id in transformers.
  const tokenizer = await loadTokenizer({ source: marian('source.spm'), target: marian('target.spm'), vocab });
  const { ids, unknown } = tokenizer.encode('Fluß', { addSpecialTokens: false });
  expect(Array.from(ids)).toEqual(['\u2581', 'F', 'l', 'u', 'ß'].map((p) => vocab[p]));
  expect(unknown).toEqual([false, false, false, false, false]);
  // A run of unknown characters is one unknown piece ("Bä"), and vocab.json has no "Bä" nor "🙂": <unk>.
  const strange = tokenizer.encode('Bäume 🙂', { addSpecialTokens: false });
  expect(strange.ids.filter((id) => id === vocab['<unk>'])).toHaveLength(2);
  expect(strange.unknown.filter(Boolean)).toHaveLength(2);
});
