// The relaxed-SIMD build against the plain SIMD build on every fixture: the same models, inputs
// and ids, results that differ by rounding only (its multiply-adds may be fused, one rounding
// where the plain build has two). The largest differences it prints are the README's figures.
// Both are checked against PyTorch and float64 by the other suites, at the same tolerances.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadEngine, relaxedSimdSupported } from '../../../web/src/index.js';
import { maxAbsDiff } from '../helpers.js';

const CHECKPOINTS = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const SOURCES = [['built-in default', undefined], ['built-in causal', { builtin: 'causal' }],
  ...readdirSync(CHECKPOINTS, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => [e.name, `${CHECKPOINTS}${e.name}`])];
const TEXT = 'When Mary and John went to the store, John gave a drink to Mary. The cat sat on the mat because it was tired.';

let relaxed, plain;
const worst = { attention: 0, hidden: 0, logits: 0 };
beforeAll(async () => {
  [relaxed, plain] = await Promise.all([loadEngine({ relaxedSimd: true }), loadEngine({ relaxedSimd: false })]);
});
afterAll(() => {
  process.stdout.write(`[relaxed − SIMD, every fixture] max |diff| attention ${worst.attention.toExponential(1)}, ` +
    `hidden ${worst.hidden.toExponential(1)}, logits / max |logit| ${worst.logits.toExponential(1)}\n`);
  relaxed.dispose();
  plain.dispose();
});

test('the two engines are the two SIMD builds', () => {
  expect([relaxed.build, plain.build]).toEqual(['relaxed-simd', 'simd']);
});

test('loadEngine refuses relaxedSimd options it cannot honour, by name', async () => {
  await expect(loadEngine({ relaxedSimd: 'yes' })).rejects.toThrow('relaxedSimd must be true or false, got the string "yes"');
  await expect(loadEngine({ simd: false, relaxedSimd: true })).rejects.toThrow('relaxed SIMD is a SIMD build');
  expect((await loadEngine({ simd: false, relaxedSimd: false })).build).toBe('scalar');
});

test('Node without --experimental-wasm-relaxed-simd gets the SIMD build, and relaxedSimd: true says why it cannot', async () => {
  expect(relaxedSimdSupported()).toBe(true); // Jest runs under the flag (jest.config.js)
  const script = `
    import { loadEngine, relaxedSimdSupported } from ${JSON.stringify(fileURLToPath(new URL('../../../web/src/index.js', import.meta.url)))};
    const engine = await loadEngine({ threads: 1 });
    const refused = await loadEngine({ relaxedSimd: true }).then(() => null, (error) => error.message);
    console.log(JSON.stringify({ supported: relaxedSimdSupported(), build: engine.build, refused }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 30000 });
  expect(JSON.parse(stdout)).toEqual({ supported: false, build: 'simd', refused: expect.stringContaining('--experimental-wasm-relaxed-simd') });
});

test.each(SOURCES)('%s: attention, hidden states and logits differ by rounding only', async (_, source) => {
  const [a, b] = await Promise.all([relaxed.loadModel(source), plain.loadModel(source)]);
  const ra = a.run(TEXT), rb = b.run(TEXT);
  expect(Array.from(ra.ids)).toEqual(Array.from(rb.ids));
  let attention = 0;
  for (let l = 0; l < ra.layers; l++) for (let h = 0; h < ra.heads; h++) attention = Math.max(attention, maxAbsDiff(ra.attention(l, h), rb.attention(l, h)));
  const hidden = maxAbsDiff(ra.hidden, rb.hidden);
  let logits = 0;
  if (ra.hasLmHead) {
    for (let i = 0; i < ra.ids.length; i++) {
      const want = rb.logits(i);
      logits = Math.max(logits, maxAbsDiff(ra.logits(i), want) / want.reduce((m, v) => Math.max(m, Math.abs(v)), 0));
    }
  }
  Object.assign(worst, { attention: Math.max(worst.attention, attention), hidden: Math.max(worst.hidden, hidden), logits: Math.max(worst.logits, logits) });
  expect(attention).toBeLessThan(1e-5);
  expect(hidden).toBeLessThan(1e-4);
  expect(logits).toBeLessThan(1e-4);
  a.dispose();
  b.dispose();
});
