// A huge paste costs what the model reads, not what was pasted (issue 33, point 7): run() and
// generate() tokenize a long text only up to a cut past the tokens they keep (tokenizer.js,
// cut.js). Measured before, in Node: 10 MB of English took 40.8 s to run, 1M × "🐈 " 7.6 s. The
// regression is pinned by how much text the tokenizer library is asked to read, not by a clock.
// The default model (64 positions, closing [SEP]) and the causal one (no closing token); that
// the tokens kept are the whole text's is tokenizer/long-text.test.js's.
import { jest } from '@jest/globals';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadEngine } from '../../../web/src/index.js';
import { truncationNote } from '../../../web/src/views/view-data.js';

let engine, bert, causal;
beforeAll(async () => {
  engine = await loadEngine();
  [bert, causal] = await Promise.all([engine.loadModel(), engine.loadModel({ builtin: 'causal' })]);
});
afterAll(() => engine?.dispose());

/** The lengths of the texts the tokenizer library encodes while `act` runs. */
function textsRead(act) {
  const encode = jest.spyOn(Tokenizer.prototype, 'encode');
  try {
    act();
    return encode.mock.calls.map(([text]) => text.length);
  } finally {
    encode.mockRestore();
  }
}

const PASTES = [
  ['1 MB of English', 'The CAT sat on the mat. '.repeat(45000), 'The CAT sat on the mat. '.repeat(20)],
  ['1M × "🐈 "', '🐈 '.repeat(1e6), '🐈 '.repeat(100)],
];

test.each(PASTES)('run() reads %s only as far as the tokens it keeps, and keeps the whole text\'s first tokens and [SEP]', (_, paste, start) => {
  let r;
  const read = textsRead(() => { r = bert.run(paste); });
  expect(Math.max(...read)).toBeLessThan(paste.length / 100); // it read all of it before
  const first = bert.tokenize(start).tokens;
  expect(r.tokens).toEqual([...first.slice(0, bert.maxTokens - 1), '[SEP]']);
  expect([r.truncated, r.totalTokens > bert.maxTokens]).toEqual([true, true]);
});

test('a causal model\'s run of a long paste simply stops, as the whole text\'s would', () => {
  const paste = 'Once upon a time, a cat sat on a mat. '.repeat(30000);
  let r;
  const read = textsRead(() => { r = causal.run(paste); });
  expect(Math.max(...read)).toBeLessThan(paste.length / 100);
  expect(r.tokens).toEqual(causal.tokenize('Once upon a time, a cat sat on a mat. '.repeat(20)).tokens.slice(0, causal.maxTokens));
  expect(r.truncated).toBe(true);
});

test('a long prompt read in part is refused after a continuation, and before a writing, with "more than"', () => {
  const paste = 'Once upon a time, a cat sat on a mat. '.repeat(30000);
  const n = causal.maxTokens;
  expect(() => causal.run(paste, { continuation: [5] })).toThrow(new RegExp(`^the prompt's at least \\d+ tokens and the continuation's 1 are at least \\d+, more than ${n}$`));
  expect(() => causal.generate(paste)).toThrow(`the prompt has more than the model's ${n} tokens: shorten it to write after it`);
});

test('the note on a cut paste says what is shown, and no count of tokens it does not know', () => {
  const r = bert.run('🐈 '.repeat(1e6));
  expect(truncationNote({ ...r, closing: true })).toBe('This text is longer than the model\'s 64 tokens: only the first 63 and the closing [SEP] are shown.');
  expect(truncationNote({ tokens: r.tokens.slice(0, 3), closing: false }, true)).toBe('This text is longer than the 3 tokens this page runs at once: only the first 3 are shown.');
});

test('model.tokenize() still reads the whole text, and counts every token', () => {
  const paste = 'The CAT sat on the mat. '.repeat(2000);
  expect(bert.tokenize(paste).ids).toHaveLength(7 * 2000 + 2);
});
