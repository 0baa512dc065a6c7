// A model's special tokens come from its tokenizer, in both tokenizer.json layouts: the mask token
// a masked LM fills in and the closing token a text ends with, or null where the tokenizer has
// none. The page names and finds them through these, not through a table of architectures.
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { TOKENIZER_LAYOUTS, checkpointSource } from '../helpers.js';
import { tinyModelFiles } from '../tiny-model.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));

let engine;
beforeAll(async () => { engine = await loadEngine(); });
afterAll(() => engine.dispose());

const text = (token) => token?.text ?? null;

test.each([
  ['bert-legacy', '[MASK]', '[SEP]'],
  ['distilbert', '[MASK]', '[SEP]'],
  ['roberta', '<mask>', '</s>'],
  ['gpt2-new', null, null],
  ['gpt2-legacy', null, null],
])('the %s checkpoint\'s mask token is %p and its closing token %p, in both tokenizer layouts', async (checkpoint, mask, closing) => {
  for (const [layout] of TOKENIZER_LAYOUTS) {
    const model = await engine.loadModel(checkpointSource(`${DIR}${checkpoint}/`, layout));
    expect([text(model.specialTokens.mask), text(model.specialTokens.closing)]).toEqual([mask, closing]);
    if (mask) {
      // The id is the one the tokenizer gives the mask token typed in a sentence.
      const { ids, tokens } = model.tokenize(`a ${mask} b`);
      expect(ids[tokens.indexOf(mask)]).toBe(model.specialTokens.mask.id);
    }
    if (closing) expect(model.run('a b').ids.at(-1)).toBe(model.specialTokens.closing.id);
    model.dispose();
  }
});

test('the built-in models: the BERT has [MASK] and [SEP], the GPT neither', async () => {
  const bert = await engine.loadModel();
  const gpt = await engine.loadModel({ builtin: 'causal' });
  expect([text(bert.specialTokens.mask), text(bert.specialTokens.closing)]).toEqual(['[MASK]', '[SEP]']);
  expect([gpt.specialTokens.mask, gpt.specialTokens.closing]).toEqual([null, null]);
  expect(Object.isFrozen(bert.specialTokens)).toBe(true);
  bert.dispose();
  gpt.dispose();
});

test('a text cut to the positions keeps the closing token only where the tokenizer ends texts with one', async () => {
  const bert = await engine.loadModel(tinyModelFiles());
  const cut = bert.run('the cat sat on the mat the cat sat on the mat');
  expect([cut.truncated, cut.tokens.at(-1)]).toEqual([true, '[SEP]']);
  bert.dispose();
  const gpt = await engine.loadModel({ builtin: 'causal' });
  const long = 'the cat sat on the mat '.repeat(200);
  const r = gpt.run(long);
  expect(r.truncated).toBe(true);
  expect(r.tokens).toEqual(gpt.tokenize(long).tokens.slice(0, gpt.maxTokens));
  gpt.dispose();
});
