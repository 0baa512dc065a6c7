// Written text as a reader reads it: model.decode() through the tokenizer's own decoder, each
// writing step's `text` (everything written so far) and the writing's `text` once it ends, for
// the built-in models and a byte-level BPE checkpoint whose emoji comes in several tokens.
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';

const GPT2 = fileURLToPath(new URL('../../fixtures/checkpoints/gpt2-legacy', import.meta.url));
const PROMPT = 'Yesterday Henry met William at the station. Today Henry met';

let engine, gpt, bert, bytes;
beforeAll(async () => {
  engine = await loadEngine();
  [gpt, bert, bytes] = await Promise.all([engine.loadModel({ builtin: 'causal' }), engine.loadModel(), engine.loadModel(GPT2)]);
});
afterAll(() => engine.dispose());

test('a writing\'s steps carry the text so far, and the writing its whole text: words with their spaces, not tokens run together', async () => {
  const writing = gpt.generate(PROMPT, { maxNewTokens: 6 });
  expect(writing.text).toBeNull();
  const steps = [];
  for await (const step of writing) {
    steps.push(step);
    expect(step.text).toBe(gpt.decode(steps.map((s) => s.id), { skipSpecialTokens: true }));
  }
  expect(writing.text).toBe(steps.at(-1).text);
  // Its WordPiece decoder puts a space between words (each token here is a word): what the
  // steps' tokens run together would not.
  expect(writing.text).toBe(steps.map((s) => s.token).join(' '));
  expect(writing.text).not.toBe(steps.map((s) => s.token).join(''));
});

test('a byte-level model\'s emoji decodes whole from its byte tokens, and in part as the replacement character', () => {
  const { ids } = bytes.tokenize(' 🐈');
  expect(ids.length).toBeGreaterThan(1);
  expect(bytes.decode(ids)).toBe(' 🐈');
  expect(bytes.decode(ids.slice(0, ids.length - 1))).toContain('\uFFFD');
});

test('skipSpecialTokens leaves out [CLS] and [SEP]; an empty list is the empty text', () => {
  const { ids } = bert.tokenize('The cat sat.');
  expect(bert.decode(ids)).toMatch(/^\[CLS\] .*\[SEP\]$/);
  expect(bert.decode(ids, { skipSpecialTokens: true })).toBe('the cat sat.');
  expect(bert.decode([])).toBe('');
});

test('bad ids and options are named; a disposed model says so', async () => {
  expect(() => gpt.decode('1 2')).toThrow(/^ids must be an Array or Int32Array of token ids, got the string "1 2"$/);
  expect(() => gpt.decode([1, gpt.vocabSize])).toThrow(new RangeError(`ids[1] must be from 0 to ${gpt.vocabSize - 1}, got ${gpt.vocabSize}`));
  expect(() => gpt.decode([1.5])).toThrow(/^ids\[0\] must be an integer/);
  expect(() => gpt.decode([1], { skip: true })).toThrow(/^decode has no option skip; its one option is skipSpecialTokens$/);
  expect(() => gpt.decode([1], { skipSpecialTokens: 'yes' })).toThrow(/^skipSpecialTokens must be true or false/);
  const other = await engine.loadModel({ builtin: 'causal' });
  other.dispose();
  expect(() => other.decode([1])).toThrow(/disposed/);
});
