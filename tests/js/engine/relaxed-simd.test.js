// The relaxed-SIMD build against the plain SIMD build on every fixture: the same models, inputs
// and ids, results that differ by rounding only (its multiply-adds may be fused, one rounding
// where the plain build has two). The largest differences it prints are the README's figures.
// Both are checked against PyTorch and float64 by the other suites, at the same tolerances.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
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
