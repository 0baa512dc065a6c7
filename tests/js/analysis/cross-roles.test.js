// crossHeadRoles on hand-made cross-attention (decoder rows over source columns): each row is
// scored on the source word paired with the word it writes (the next target id): the same word
// in the source when it is there, else every head's consensus; special tokens are never paired.
// A head parked on </s> is a sink, and the diagonal baseline is the share of paired rows whose
// word is the diagonal one. averageHeads takes the same rectangles; rollout refuses them.
import { crossHeadRoles } from '../../../web/src/analysis/cross-roles.js';
import { averageHeads, rollout } from '../../../web/src/analysis/rollout.js';

// Source: <s> w x y z </s> (ids 0, 10, 11, 12, 13, 2). Decoder input: </s> <s> z y x w (the start
// ids 2 and 0, then the source's words backwards); row r writes ids[r + 1]. Special: 0, 1, 2.
const SPECIAL = new Set([0, 1, 2]);
const keyIds = [0, 10, 11, 12, 13, 2], ids = [2, 0, 13, 12, 11, 10];
const N = ids.length, M = keyIds.length;
function head(fill) {
  const a = new Float32Array(N * M);
  for (let r = 0; r < N; r++) fill(r, (j, w) => { a[r * M + j] = w; });
  return a;
}
const column = (id) => keyIds.indexOf(id);
// Head 0 reads the word each row writes; head 1 parks on </s>; head 2 reads the word each row holds.
const writes = head((r, set) => set(r + 1 < N && column(ids[r + 1]) > 0 ? column(ids[r + 1]) : M - 1, 1));
const sink = head((r, set) => set(M - 1, 1));
const holds = head((r, set) => set(column(ids[r]) > 0 ? column(ids[r]) : 0, 1));
const run = {
  tokens: ['</s>', '<s>', 'z', 'y', 'x', 'w'], ids, keyTokens: ['<s>', 'w', 'x', 'y', 'z', '</s>'], keyIds, numLayers: 1, numHeads: 3,
  attention: (l, h) => [writes, sink, holds][h],
};

test('a word in the source pairs with itself there; the head that reads it as it writes is the aligned one', () => {
  const { roles, alignment, diagonal } = crossHeadRoles(run, SPECIAL);
  // Row 0 writes <s> (special: unpaired); rows 1–4 write z y x w; row 5 writes nothing yet.
  expect(alignment).toEqual([null, 4, 3, 2, 1, null]);
  expect(roles.map((r) => r.scores)).toEqual([{ align: 1, sink: 2 / 6 }, { align: 0, sink: 1 }, { align: 0, sink: 1 / 6 }]);
  expect(roles.map((r) => r.top?.role ?? null)).toEqual(['align', 'sink', null]);
  expect(diagonal).toBe(0); // backwards never meets the diagonal
});

test('a word the source lacks pairs with the column every head together reads most; the diagonal baseline of a monotone pair is 1', () => {
  const translated = [2, 0, 20, 21, 22, 23]; // four words the source does not have
  const diagonalHead = head((r, set) => set(Math.max(1, Math.min(r, 4)), 1));
  const { alignment, diagonal, roles } = crossHeadRoles({ ...run, ids: translated, numHeads: 1, attention: () => diagonalHead }, SPECIAL);
  expect(alignment).toEqual([null, 1, 2, 3, 4, null]);
  expect(roles[0].scores.align).toBe(1);
  expect(diagonal).toBe(1); // rows 1–4 against the words 1, 2, 3, 4 the diagonal pairs them with
});

test('nothing paired gives no align score; a source without a closing special token no sink score', () => {
  const { roles, diagonal } = crossHeadRoles({ ...run, ids: [2, 0, 0, 0, 0, 0], keyIds: [0, 10, 11, 12, 13, 14] }, SPECIAL);
  expect(roles[0].scores).toEqual({ align: null, sink: null });
  expect(diagonal).toBeNull();
});

test('averageHeads averages rectangles; rollout and bad shapes get clear errors', () => {
  const mean = averageHeads(run, 0);
  expect(mean).toHaveLength(N * M);
  expect(mean[2 * M + 4]).toBeCloseTo(1 / 3, 6); // row 2 ("z") on "z": head 2 only
  expect(() => rollout(run)).toThrow('rollout follows attention through one stack\'s layers, whose queries and keys are the same tokens; result.keyTokens says these 6 rows read 6 other tokens (cross-attention)');
  expect(() => averageHeads({ ...run, attention: () => new Float32Array(N * N - 1) }, 0)).toThrow('averageHeads: result.attention(0, 0) has 35 values, expected n × n = 6 × 6');
  expect(() => crossHeadRoles({ ...run, keyTokens: 'w x' })).toThrow('crossHeadRoles: result.keyTokens must be an Array, got the string "w x"');
  expect(() => crossHeadRoles({ ...run, keyIds: [0, 1] })).toThrow('crossHeadRoles: result.ids and result.keyIds must hold 6 and 6 ids, got 6 and 2');
});
