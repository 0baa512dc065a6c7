// averageHeads and rollout over the engine's attention, against NumPy's float64 computation on
// the PyTorch reference attention of every checkpoint case (tools/attention_summaries.py, written
// by tools/make_checkpoints.py as average.f32 and rollout.f32): to 1e-5. Then their properties
// (rows sum to 1, a causal model's rollout is lower-triangular) and their errors.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { averageHeads, loadEngine, rollout } from '../../../web/src/index.js';
import { maxAbsDiff, readModelCase } from '../helpers.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const folders = (dir) => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
const CASES = folders(DIR).flatMap((checkpoint) => folders(`${DIR}${checkpoint}/cases`)
  .filter((name) => !name.startsWith('ablated')).map((name) => [checkpoint, name]));

let engine;
const models = {};
beforeAll(async () => {
  engine = await loadEngine();
  for (const [checkpoint] of CASES) models[checkpoint] ??= await engine.loadModel(`${DIR}${checkpoint}`);
});
afterAll(() => engine.dispose());

test.each(CASES)('%s/%s: every layer\'s head average and the rollout match NumPy on PyTorch\'s attention', (checkpoint, name) => {
  const f = readModelCase(`${DIR}${checkpoint}/cases/${name}`);
  const r = models[checkpoint].run(f.text);
  const { n, layers } = f;
  let average = 0;
  for (let l = 0; l < layers; l++) average = Math.max(average, maxAbsDiff(averageHeads(r, l), f.average.subarray(l * n * n, (l + 1) * n * n)));
  const rolled = rollout(r);
  const diff = maxAbsDiff(rolled, f.rollout);
  process.stdout.write(`[rollout] ${checkpoint}/${name}: ${layers} layers, max |diff| average ${average.toExponential(2)}, rollout ${diff.toExponential(2)}\n`);
  expect(average).toBeLessThan(1e-5);
  expect(diff).toBeLessThan(1e-5);
  for (let i = 0; i < n; i++) {
    expect(rolled.subarray(i * n, (i + 1) * n).reduce((a, b) => a + b)).toBeCloseTo(1, 5);
    if (r.causal) for (let j = i + 1; j < n; j++) expect(rolled[i * n + j]).toBe(0);
  }
});

test('one layer of one head rolls out to (A + I) / 2', () => {
  const a = Float32Array.of(0.5, 0.5, 0.25, 0.75);
  const one = { layers: 1, heads: 1, tokens: ['x', 'y'], attention: () => a };
  expect(Array.from(rollout(one))).toEqual([0.75, 0.25, 0.125, 0.875]);
  expect(Array.from(averageHeads(one, 0))).toEqual(Array.from(a));
});

test.each([
  [null, TypeError, "rollout's result must be an object, got null"],
  [{ layers: 0, heads: 1, tokens: ['a'], attention: () => new Float32Array(1) }, RangeError, 'rollout: result.layers must be from 1 to 1024, got 0'],
  [{ layers: 1, heads: 1, tokens: 'ab', attention: () => new Float32Array(4) }, TypeError, 'rollout: result.tokens must be an Array, got the string "ab"'],
  [{ layers: 1, heads: 1, tokens: ['a', 'b'] }, TypeError, 'rollout: result.attention must be a function'],
  [{ layers: 1, heads: 1, tokens: ['a', 'b'], attention: () => [1, 0, 0, 1] }, TypeError, 'rollout: result.attention(0, 0) must be a Float32Array, got an Array of length 4'],
  [{ layers: 1, heads: 1, tokens: ['a', 'b'], attention: () => new Float32Array(3) }, RangeError, 'rollout: result.attention(0, 0) has 3 values, expected n × n = 2 × 2'],
  [{ layers: 1, heads: 1, tokens: ['a', 'b'], attention: () => Float32Array.of(1, 0, NaN, 1) }, RangeError, 'rollout: result.attention(0, 0)[2] is NaN: attention weights are from 0 to 1'],
])('rollout(%p) gets a clear error', (result, Type, message) => {
  expect(() => rollout(result)).toThrow(Type);
  expect(() => rollout(result)).toThrow(message);
});

test('averageHeads checks its layer', () => {
  const r = models['gpt2-new'].run('The old man');
  expect(() => averageHeads(r, 2)).toThrow('layer must be from 0 to 1, got 2');
  expect(() => averageHeads(r, '0')).toThrow(TypeError);
});
