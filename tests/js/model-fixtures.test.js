// The default model, loaded as a user would (engine.loadModel() with no argument, no network),
// against its PyTorch definition on the fixture sentences (tests/fixtures/model): the tokenizer's
// ids exactly, every layer's attention and the final hidden states to 1e-4, on both builds.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { BUILDS, maxAbsDiff, readModelCase } from './helpers.js';

const DIR = fileURLToPath(new URL('../fixtures/model/', import.meta.url));
const CASES = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();

test('there are at least five fixture sentences', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(5);
});

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine, model;
  beforeAll(async () => {
    engine = await loadEngine(options);
    model = await engine.loadModel();
  });
  afterAll(() => engine.dispose());

  test.each(CASES)('matches the PyTorch model on %s to 1e-4', (name) => {
    const f = readModelCase(`${DIR}${name}`);
    const r = model.run(f.text);
    expect(Array.from(r.ids)).toEqual(Array.from(f.ids));
    let attentionDiff = 0;
    for (let l = 0; l < f.layers; l++) {
      for (let h = 0; h < f.heads; h++) {
        const start = (l * f.heads + h) * f.n * f.n;
        attentionDiff = Math.max(attentionDiff, maxAbsDiff(r.attention(l, h), f.attention.subarray(start, start + f.n * f.n)));
      }
    }
    const hiddenDiff = maxAbsDiff(r.hidden, f.hidden);
    process.stdout.write(`[fixture] ${build} model ${name}: max |diff| attention ${attentionDiff.toExponential(2)}, hidden ${hiddenDiff.toExponential(2)}\n`);
    expect(attentionDiff).toBeLessThan(1e-4);
    expect(hiddenDiff).toBeLessThan(1e-4);
  });
});
