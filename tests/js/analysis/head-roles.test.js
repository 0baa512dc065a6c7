// headRoles on hand-made heads whose role is known, each score worked out by hand from its
// formula; then on a real run (every score in [0, 1], one entry per head) and its errors.
import { fileURLToPath } from 'node:url';
import { ROLES, headRoles, loadEngine } from '../../../web/src/index.js';

/** A one-layer result from heads given as functions (i, j, n) → weight, each row normalised. */
function fake(tokens, heads, { causal = false, ids } = {}) {
  const n = tokens.length;
  const matrices = heads.map((weight) => {
    const a = new Float32Array(n * n);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < n; j++) sum += (a[i * n + j] = causal && j > i ? 0 : weight(i, j, n));
      for (let j = 0; j < n; j++) a[i * n + j] /= sum;
    }
    return a;
  });
  return { layers: 1, heads: heads.length, tokens, ids, causal, attention: (l, h) => matrices[h] };
}

const one = (target) => (i, j, n) => (j === target(i, n) ? 1 : 0);
const SENTENCE = ['[CLS]', 'the', 'cat', ',', 'the', 'dog', '.', '[SEP]'];

test('positional heads score 1 on their role, and it is their top role', () => {
  const roles = headRoles(fake(SENTENCE, [
    one((i) => Math.max(i - 1, 0)), one((i, n) => Math.min(i + 1, n - 1)), one((i) => i), one(() => 0), one((i, n) => n - 1),
  ]));
  expect(roles.map((r) => r.top.role)).toEqual(['previous', 'next', 'self', 'sink', 'last']);
  expect(roles.map((r) => r.top.score)).toEqual([1, 1, 1, 1, 1]);
  expect(roles.map((r) => [r.layer, r.head])).toEqual([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]);
  // The previous-token head: row 0 looks at itself, so self is 1/8; [SEP] is the previous token of nothing.
  expect(roles[0].scores.self).toBeCloseTo(1 / 8);
  expect(roles[0].scores.next).toBe(0);
  expect(roles[0].scores.sink).toBeCloseTo(1 / 7); // row 1 looks at 0
  expect(roles[0].scores.last).toBe(0);
  expect(roles[0].scores.broad).toBe(0);
});

test('a uniform head is broad, and its weight on punctuation is its share of the keys', () => {
  const [uniform] = headRoles(fake(SENTENCE, [() => 1]));
  expect(uniform.scores.broad).toBeCloseTo(1, 6);
  expect(uniform.top).toEqual({ role: 'broad', score: uniform.scores.broad });
  expect(uniform.scores.punctuation).toBeCloseTo(2 / 8);
  expect(uniform.scores.previous).toBeCloseTo(1 / 8);
  // A causal uniform head sees i + 1 keys: still entropy log(i + 1), normalised to 1.
  const [causal] = headRoles(fake(SENTENCE, [() => 1], { causal: true }));
  expect(causal.scores.broad).toBeCloseTo(1, 6);
  expect(causal.scores.last).toBeNull();
  expect(causal.scores.next).toBe(0);
});

test('duplicate and induction heads are measured where a token repeats, by id', () => {
  // a b c a b c: from the second a (3), the duplicate is 0 and the induction target is 1.
  const tokens = ['a', 'b', 'c', 'A', 'B', 'C'];
  const ids = [5, 6, 7, 5, 6, 7];
  const [duplicate, induction] = headRoles(fake(tokens, [
    one((i) => (i >= 3 ? i - 3 : 0)), one((i) => (i >= 3 ? i - 2 : 0)),
  ], { causal: true, ids }));
  expect(duplicate.scores.duplicate).toBe(1);
  expect(duplicate.scores.induction).toBe(0);
  expect(induction.scores.induction).toBe(1);
  expect(induction.top).toEqual({ role: 'induction', score: 1 });
  // Without ids the labels decide: 'a' and 'A' differ, so nothing repeats.
  const [noIds] = headRoles(fake(tokens, [() => 1]));
  expect([noIds.scores.duplicate, noIds.scores.induction, noIds.scores.punctuation]).toEqual([null, null, null]);
});

test('a head below every threshold has no top role', () => {
  const [mixed] = headRoles(fake(SENTENCE, [(i, j) => (j === i ? 2 : j === 0 ? 2 : 0.1)]));
  expect(mixed.scores.self).toBeLessThan(ROLES.self.threshold);
  expect(mixed.top).toBeNull();
});

test('on a real run every score is in [0, 1] or null, for every head', async () => {
  const engine = await loadEngine();
  try {
    const model = await engine.loadModel(fileURLToPath(new URL('../../fixtures/checkpoints/gpt2-new', import.meta.url)));
    const r = model.run('The old man saw the river, and the old man saw the river again.');
    const roles = headRoles(r);
    expect(roles).toHaveLength(r.layers * r.heads);
    for (const { scores } of roles) {
      expect(Object.keys(scores)).toEqual(Object.keys(ROLES));
      for (const v of Object.values(scores)) if (v !== null) expect(v >= 0 && v <= 1 + 1e-6).toBe(true);
      expect(scores.last).toBeNull(); // GPT-2 adds no closing token
      expect(scores.induction).not.toBeNull(); // the sentence repeats
    }
  } finally {
    engine.dispose();
  }
});

test('bad results get the same clear errors as rollout', () => {
  expect(() => headRoles(undefined)).toThrow("headRoles's result must be an object, got undefined");
  expect(() => headRoles({ layers: 1, heads: 1, tokens: [], attention: () => new Float32Array(0) }))
    .toThrow('headRoles: result.tokens.length must be from 1 to 4096, got 0');
});
