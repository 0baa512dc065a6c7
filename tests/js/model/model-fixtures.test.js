// The built-in models, loaded as a user would (engine.loadModel() and { builtin: 'causal' }, no
// network), against their PyTorch definitions on the fixture sentences (tests/fixtures/models):
// the tokenizer's ids exactly, every layer's attention and the final hidden states to 1e-4, and
// the logits (the default model's MLM head, the causal model's next token) to 1e-3 of the largest
// |logit|, with the top predictions in PyTorch's order, on both builds.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, maxAbsDiff, readModelCase } from '../helpers.js';

const DIR = fileURLToPath(new URL('../../fixtures/models/', import.meta.url));
const SOURCES = { default: undefined, causal: { builtin: 'causal' } };
const casesOf = (model) => readdirSync(`${DIR}${model}`, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
const CASES = Object.keys(SOURCES).flatMap((model) => casesOf(model).map((name) => [model, name]));

test.each(Object.keys(SOURCES))('the %s model has at least five fixture sentences', (model) => {
  expect(casesOf(model).length).toBeGreaterThanOrEqual(5);
});

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  const models = {};
  beforeAll(async () => {
    engine = await loadEngine(options);
    for (const [name, source] of Object.entries(SOURCES)) models[name] = await engine.loadModel(source);
  });
  afterAll(() => engine.dispose());

  test.each(CASES)('the %s model matches PyTorch on %s', (model, name) => {
    const f = readModelCase(`${DIR}${model}/${name}`);
    const r = models[model].run(f.text);
    expect(Array.from(r.ids)).toEqual(Array.from(f.ids));
    let attentionDiff = 0;
    for (let l = 0; l < f.layers; l++) {
      for (let h = 0; h < f.heads; h++) {
        const start = (l * f.heads + h) * f.n * f.n;
        attentionDiff = Math.max(attentionDiff, maxAbsDiff(r.attention(l, h), f.attention.subarray(start, start + f.n * f.n)));
      }
    }
    const hiddenDiff = maxAbsDiff(r.hidden, f.hidden);
    let logitsDiff = 0;
    if (f.logits) {
      const scale = f.logits.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      for (let i = 0; i < f.n; i++) {
        const want = f.logits.subarray(i * f.vocab, (i + 1) * f.vocab);
        logitsDiff = Math.max(logitsDiff, maxAbsDiff(r.logits(i), want) / scale);
        // PyTorch's top three in its order, unless two of them nearly tie (float32 may swap those).
        const order = Array.from(want.keys()).sort((a, b) => want[b] - want[a]).slice(0, 4);
        const apart = order.slice(0, 3).every((id, k) => want[id] - want[order[k + 1]] > 1e-3);
        if (apart) expect(r.predictions(i, 3).map((p) => p.id)).toEqual(order.slice(0, 3));
      }
      expect(logitsDiff).toBeLessThan(1e-3);
    }
    process.stdout.write(`[fixture] ${build} ${model} ${name}: max |diff| attention ${attentionDiff.toExponential(2)}, ` +
      `hidden ${hiddenDiff.toExponential(2)}, logits/max ${logitsDiff.toExponential(2)}\n`);
    expect(attentionDiff).toBeLessThan(1e-4);
    expect(hiddenDiff).toBeLessThan(1e-4);
  });
});
