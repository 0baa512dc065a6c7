// What the Why? view draws, from the engine's results (web/src/views/why-data.js), on both
// built-in models: the default position, the logit lens as a table whose last row is the model's
// own prediction, each query's top keys as the head's attention ranks them, and errors as data.
import { loadEngine } from '../../../web/src/index.js';
import { explainAt, whyLens, whyPosition, whyQueryKeys } from '../../../web/src/views/why-data.js';

const CLEAN = 'Yesterday Henry met William at the station. Today Henry met';

let engine, gpt, bert;
beforeAll(async () => {
  engine = await loadEngine();
  [gpt, bert] = await Promise.all([engine.loadModel({ builtin: 'causal' }), engine.loadModel()]);
});
afterAll(() => engine.dispose());

test('the default position: a causal model\'s last, a masked model\'s first mask, else the first word', () => {
  const run = gpt.run(CLEAN);
  expect(whyPosition(gpt, run.ids)).toBe(run.ids.length - 1);
  const masked = bert.run('The cat sat on the [MASK] near the [MASK].');
  expect(masked.tokens[whyPosition(bert, masked.ids)]).toBe('[MASK]');
  expect(masked.tokens.indexOf('[MASK]')).toBe(whyPosition(bert, masked.ids));
  expect(whyPosition(bert, bert.run('The cat sat.').ids)).toBe(1); // after [CLS]
});

test('the lens table ends at the position of a causal model; its last row is the model\'s prediction', () => {
  const run = gpt.run(CLEAN);
  const position = run.ids.length - 1;
  const lens = whyLens(gpt, run, position);
  expect(lens.positions.at(-1)).toBe(position);
  expect(lens.positions.length).toBe(Math.min(8, run.ids.length)); // a tiny model: the widest table
  expect(lens.layers).toEqual(['embeddings', 'layer 1', 'layer 2']);
  const column = lens.positions.indexOf(position);
  expect(lens.cells.at(-1)[column].map((c) => c.id)).toEqual(run.predictions(position, 5).map((p) => p.id));
  for (const [p, i] of lens.positions.map((p, i) => [p, i])) expect(lens.cells[1][i]).toEqual(run.logitLens(p, 5)[1].map((e) => ({ ...e })));
});

test('each query\'s top keys are those its attention weighs most, never a key it cannot see', () => {
  const run = gpt.run(CLEAN);
  const n = run.tokens.length;
  const map = whyQueryKeys(run, 1, 0);
  const weights = run.attention(1, 0);
  expect(map.top.length).toBe(n * map.k);
  for (let q = 0; q < n; q++) {
    const row = Array.from(weights.subarray(q * n, (q + 1) * n));
    expect(map.top[q * map.k]).toBe(row.indexOf(Math.max(...row)));
    for (let i = 0; i < map.k; i++) expect(map.top[q * map.k + i]).toBeLessThanOrEqual(q);
  }
  expect(map.variance[0]).toBeGreaterThanOrEqual(map.variance[1]);
});

test('a token that is not one of the vocabulary is an error to show, not a throw; the parts add up otherwise', () => {
  const run = gpt.run(CLEAN);
  const bad = explainAt(gpt, run, null, { token: '', against: ' William Henry' });
  expect(bad.error).toMatch(/^against must be one token of the model's vocabulary/);
  const good = explainAt(gpt, run, null, { token: ' william', against: ' james' });
  expect(Math.abs(good.contributions.total - good.contributions.logit)).toBeLessThan(1e-4 * Math.abs(good.contributions.logit));
  expect(good.position).toBe(run.ids.length - 1);
});
