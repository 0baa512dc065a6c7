// crossHeadRoles on hand-made cross-attention (target rows over source columns): the alignment
// is every head's consensus without the closing token, an aligned head scores 1, a head parked on
// </s> is a sink, and the diagonal baseline is the share of rows whose aligned word is the
// diagonal one. averageHeads takes the same rectangles; rollout refuses them.
import { alignmentOf, crossHeadRoles } from '../../../web/src/analysis/cross-roles.js';
import { averageHeads, rollout } from '../../../web/src/analysis/rollout.js';
import { attentionOf } from '../../../web/src/analysis/attention-source.js';

// 4 target rows over 5 source columns (4 words and </s>): head 0 reads the words backwards, head 1
// parks on </s>, head 2 reads the words backwards but half on </s>.
const N = 4, M = 5;
function head(fill) {
  const a = new Float32Array(N * M);
  for (let i = 0; i < N; i++) fill(i, (j, w) => { a[i * M + j] = w; });
  return a;
}
const reversed = head((i, set) => set(N - 1 - i, 1));
const sink = head((i, set) => set(M - 1, 1));
const half = head((i, set) => { set(N - 1 - i, 0.5); set(M - 1, 0.5); });
const run = {
  tokens: ['a', 'b', 'c', 'd'], keyTokens: ['w', 'x', 'y', 'z', '</s>'], numLayers: 1, numHeads: 3,
  attention: (l, h) => [reversed, sink, half][h],
};

test('the alignment is the heads\' consensus without the closing token, and each head is scored on it', () => {
  const { roles, alignment, diagonal } = crossHeadRoles(run, true);
  expect(alignment).toEqual([3, 2, 1, 0]);
  expect(roles.map((r) => r.scores)).toEqual([{ align: 1, sink: 0 }, { align: 0, sink: 1 }, { align: 0.5, sink: 0.5 }]);
  expect(roles.map((r) => r.top?.role ?? null)).toEqual(['align', 'sink', 'align']);
  // The diagonal pairs row i with word round(i · 3 / 3) = i: the reversal meets it nowhere.
  expect(diagonal).toBe(0);
});

test('without a closing token there is no sink score, and </s> may be aligned', () => {
  const { roles, alignment } = crossHeadRoles({ ...run, attention: (l, h) => [sink, sink, sink][h] }, false);
  expect(alignment).toEqual([4, 4, 4, 4]);
  expect(roles[0].scores).toEqual({ align: 1, sink: null });
});

test('a diagonal alignment scores the diagonal baseline 1', () => {
  const diagonalHead = head((i, set) => set(i, 1));
  const { diagonal } = crossHeadRoles({ ...run, numHeads: 1, attention: () => diagonalHead }, true);
  expect(diagonal).toBe(1);
  expect(alignmentOf(attentionOf({ ...run, numHeads: 1, attention: () => diagonalHead }, 'test'), true)).toEqual([0, 1, 2, 3]);
});

test('averageHeads averages rectangles; rollout and bad shapes get clear errors', () => {
  const mean = averageHeads(run, 0);
  expect(mean).toHaveLength(N * M);
  expect(mean[0 * M + 3]).toBeCloseTo(0.5, 6); // (1 + 0 + 0.5) / 3
  expect(() => rollout(run)).toThrow('rollout follows attention through one stack\'s layers, whose queries and keys are the same 4 tokens; these rows read 5 other tokens (cross-attention)');
  expect(() => averageHeads({ ...run, attention: () => new Float32Array(N * N) }, 0)).toThrow('averageHeads: result.attention(0, 0) has 16 values, expected n × nKeys = 4 × 5');
  expect(() => crossHeadRoles({ ...run, keyTokens: 'w x' }, true)).toThrow('crossHeadRoles: result.keyTokens must be an Array, got the string "w x"');
});
