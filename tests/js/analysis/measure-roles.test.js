// measureHeadRoles over the probe set and repeated random tokens. On the built-in causal model its
// previous-token and induction scores are tools/measure_induction.py's (causal-heads.json) to 3
// decimals, and it names the same heads. On a 12-layer, 12-head checkpoint every head is measured.
// The relation counts and the fixed-offset baselines are recounted here from the probe set itself.
// Then progress, cancelling and bad options.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine, measureHeadRoles } from '../../../web/src/index.js';

const probes = JSON.parse(readFileSync(new URL('../../../web/probes/syntax.json', import.meta.url), 'utf8'));
const measured = JSON.parse(readFileSync(new URL('../../fixtures/models/causal-heads.json', import.meta.url), 'utf8'));
const BERT_12X12 = fileURLToPath(new URL('../../fixtures/checkpoints/bert-12x12', import.meta.url));

let engine, causal, roles;
beforeAll(async () => {
  engine = await loadEngine();
  causal = await engine.loadModel({ builtin: 'causal' });
  roles = await measureHeadRoles(causal, { probes, runs: measured.runs, runLength: measured.run_length, seed: measured.seed });
}, 120000);
afterAll(() => engine.dispose());

test('on the causal model the previous-token and induction scores are measure_induction.py\'s, to 3 decimals', () => {
  expect(roles.heads).toHaveLength(measured.heads.length);
  for (const [i, want] of measured.heads.entries()) {
    const got = roles.heads[i];
    expect([got.layer, got.head]).toEqual([want.layer, want.head]);
    expect(got.scores.previous).toBeCloseTo(want.prev, 3);
    expect(got.scores.induction).toBeCloseTo(want.induction, 3);
  }
  const named = (role) => roles.heads.filter((h) => h.top?.role === role).map((h) => [h.layer, h.head]);
  expect(named('induction')).toContainEqual([measured.best_induction.layer, measured.best_induction.head]);
  expect(named('previous')).toContainEqual([measured.best_prev.layer, measured.best_prev.head]);
});

test('every relation counts the probe set\'s arcs, and its baseline is the best fixed offset recounted here', () => {
  for (const relation of Object.keys(probes.relations)) {
    const arcs = probes.sentences.flatMap((s) => s.arcs.filter(([r]) => r === relation));
    const summary = roles.relations[relation];
    expect(summary.arcs).toBe(arcs.length);
    let best = 0;
    for (let offset = -4; offset <= 4; offset++) {
      if (offset === 0) continue;
      best = Math.max(best, arcs.filter(([, from, to]) => from + offset === to).length, arcs.filter(([, from, to]) => to + offset === from).length);
    }
    expect(summary.baseline.score).toBeCloseTo(best / arcs.length, 12);
    expect(summary.best.score).toBe(Math.max(...roles.heads.map((h) => h.scores[relation])));
  }
  expect(roles.sentences).toEqual({ total: probes.sentences.length, measured: probes.sentences.length });
});

test('a 12 × 12 checkpoint: every head gets every score, with progress to the end', async () => {
  const model = await engine.loadModel(BERT_12X12);
  const seen = [];
  const result = await measureHeadRoles(model, { probes, runs: 20, onProgress: (p) => seen.push(p) });
  expect(result.heads).toHaveLength(144);
  expect(seen.at(-1)).toEqual({ done: 20 + probes.sentences.length, total: 20 + probes.sentences.length });
  for (const h of result.heads) for (const v of Object.values(h.scores)) expect(v === null || (v >= 0 && v <= 1 + 1e-6)).toBe(true);
  model.dispose();
});

test('a signal stops it between runs, and the model still works', async () => {
  const controller = new AbortController();
  const stopped = measureHeadRoles(causal, { probes, onProgress: ({ done }) => done === 10 && controller.abort(), signal: controller.signal });
  await expect(stopped).rejects.toThrow(/aborted/i);
  expect(causal.run('the cat').tokens).toHaveLength(3);
});

test.each([
  [{ probes, runLength: 100 }, RangeError, 'runLength must be from 2 to 63, got 100'],
  [{ probes, run: 5 }, TypeError, 'measureHeadRoles has no option run'],
  [{ probes: { relations: {}, sentences: [{ text: 'a b', words: ['a', 'c'], arcs: [] }] } }, RangeError, 'probes.sentences[0].words[1] (the string "c") is not the next word of its text'],
  [{ probes: { relations: { det: '' }, sentences: [{ text: 'a b', words: ['a', 'b'], arcs: [['amod', 0, 1]] }] } }, RangeError, 'probes.sentences[0].arcs[0] names no relation of probes.relations: the string "amod"'],
  [{ probes: { relations: { det: '' }, sentences: [{ text: 'a b', words: ['a', 'b'], arcs: [['det', 0, 2]] }] } }, RangeError, 'probes.sentences[0].arcs[0] to must be from 0 to 1, got 2'],
])('bad options %#: a clear error', async (options, Type, message) => {
  await expect(measureHeadRoles(causal, options)).rejects.toThrow(Type);
  await expect(measureHeadRoles(causal, options)).rejects.toThrow(message);
});
