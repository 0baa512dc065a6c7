// queryKeyMap against a float64 reference written here from the definition with a different
// eigen-solver (power iteration with deflation, where the module tridiagonalises and runs QL), on
// seeded points of many shapes: coordinates to 1e-4 of the map's spread (up to each axis's sign),
// shares to 1e-6. Then hand-worked maps that pin the normalisation and the sign rule, the
// degenerate inputs, the frozen result and the errors.
import { queryKeyMap } from '../../../web/src/analysis/query-key-map.js';
import { randomValues } from '../helpers.js';

/**
 * n seeded rows of width d, (n, d): a few strong directions (one per entry of `spread`, weighted
 * by it) plus uniform noise, times `scale`, plus an offset vector of size up to `offset`. The
 * strong directions give the top eigenvalues clear gaps, as real heads' queries and keys have;
 * with spread [] the rows are plain noise.
 */
function cloud(n, d, seed, { spread = [3, 2, 1.2], noise = 0.3, scale = 1, offset = 0 } = {}) {
  const directions = spread.map((_, j) => randomValues(d, seed * 7919 + j * 104729 + 1));
  const weights = randomValues(n * spread.length, seed * 7919 + 17);
  const jitter = randomValues(n * d, seed * 7919 + 29, noise);
  const shift = randomValues(d, seed * 7919 + 43, offset);
  const out = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < d; c++) {
      let x = jitter[i * d + c];
      spread.forEach((s, j) => { x += weights[i * spread.length + j] * s * directions[j][c]; });
      out[i * d + c] = x * scale + shift[c];
    }
  }
  return out;
}

// ---- The reference: plain arrays of numbers, every step as the definition says it. ----

const rowsOf = (flat, d) => Array.from({ length: flat.length / d }, (_, i) => Array.from(flat.subarray(i * d, (i + 1) * d)));
const meanOf = (rows) => rows[0].map((_, c) => rows.reduce((sum, r) => sum + r[c], 0) / rows.length);
const norm = (x) => Math.sqrt(x.reduce((sum, v) => sum + v * v, 0));
const dotOf = (x, y) => x.reduce((sum, v, c) => sum + v * y[c], 0);

function unitMeanNorm(rows) {
  const meanNorm = rows.reduce((sum, r) => sum + norm(r), 0) / rows.length;
  return meanNorm === 0 ? rows : rows.map((r) => r.map((v) => v / meanNorm));
}

/**
 * The top eigenvector and eigenvalue of the symmetric matrix m (an array of rows), by power
 * iteration from a fixed start, stopped when the residual |m v − λ v| is 1e-12 of `size`, which
 * bounds the vector's error by 1e-12 · size over the eigenvalue gap. Throws if it does not get
 * there, so a slow case fails loudly instead of comparing against an unconverged answer.
 */
function powerIteration(m, size) {
  const d = m.length;
  let v = Array.from(randomValues(d, 12345), (x) => x + 2); // not orthogonal to anything in particular
  v = v.map((x) => x / norm(v));
  for (let step = 0; step < 200000; step++) {
    const mv = m.map((row) => dotOf(row, v));
    const lambda = dotOf(v, mv);
    const residual = norm(mv.map((x, c) => x - lambda * v[c]));
    if (residual <= 1e-12 * size) return { vector: v, value: lambda };
    const length = norm(mv);
    if (length === 0) return { vector: v, value: 0 };
    v = mv.map((x) => x / length);
  }
  throw new Error('the reference power iteration did not converge');
}

/** The map, by the definition: { queries: [[x, y]], keys: [[x, y]], explained: [s1, s2] }. */
function referenceMap(queries, keys, d) {
  const q = rowsOf(queries, d);
  let k = rowsOf(keys, d);
  const qMean = meanOf(q), kMean = meanOf(k);
  k = k.map((r) => r.map((v, c) => v - kMean[c] + qMean[c]));
  const points = [...unitMeanNorm(q), ...unitMeanNorm(k)];
  const centre = meanOf(points);
  const x = points.map((r) => r.map((v, c) => v - centre[c]));
  const cov = centre.map((_, a) => centre.map((_, b) => x.reduce((sum, r) => sum + r[a] * r[b], 0) / x.length));
  const total = cov.reduce((sum, row, a) => sum + row[a], 0);
  const first = powerIteration(cov, total);
  // Deflation: with the first eigenpair taken out, the second is the top one of what is left.
  const rest = cov.map((row, a) => row.map((v, b) => v - first.value * first.vector[a] * first.vector[b]));
  const second = d >= 2 ? powerIteration(rest, total) : { vector: [0], value: 0 };
  const project = (r) => [dotOf(r, first.vector), dotOf(r, second.vector)];
  return {
    queries: x.slice(0, q.length).map(project),
    keys: x.slice(q.length).map(project),
    explained: total > 0 ? [first.value / total, Math.max(second.value, 0) / total] : [0, 0],
  };
}

/** The largest difference of `map` from `reference` over every coordinate, each axis's sign matched. */
function largestDifference(map, reference) {
  const ours = [...map.queries, ...map.keys];
  const theirs = [...reference.queries, ...reference.keys].flat();
  let worst = 0;
  for (const axis of [0, 1]) {
    let agreement = 0;
    for (let i = axis; i < ours.length; i += 2) agreement += ours[i] * theirs[i];
    const sign = agreement < 0 ? -1 : 1;
    for (let i = axis; i < ours.length; i += 2) worst = Math.max(worst, Math.abs(ours[i] - sign * theirs[i]));
  }
  return worst;
}

const spreadOf = (reference) => Math.max(...[...reference.queries, ...reference.keys].flat().map(Math.abs));

// [nQ, nK, headDim, cloud options for the queries and for the keys]
const NOISE = { spread: [], noise: 1 };
const CASES = [
  [7, 5, 1, NOISE, { ...NOISE, offset: 4 }],
  [6, 9, 2, NOISE, { ...NOISE, scale: 3 }],
  [11, 4, 3, NOISE, { ...NOISE, offset: 2 }],
  [1, 8, 3, NOISE, NOISE],
  [8, 1, 3, NOISE, NOISE],
  [37, 53, 7, NOISE, { ...NOISE, scale: 0.1, offset: 1 }],
  [3, 2, 64, {}, { offset: 1 }],
  [200, 150, 64, {}, { scale: 5, offset: 3 }],
  [1024, 1024, 64, { offset: 0.5 }, { scale: 0.2, offset: 2 }],
  [129, 65, 128, {}, { spread: [4, 1], offset: 1 }],
  [301, 250, 256, { spread: [2, 1.5] }, { scale: 2, offset: 0.5 }],
];

test.each(CASES)('%i + %i rows of width %i: the map matches the float64 reference', (nQ, nK, d, queryCloud, keyCloud) => {
  const queries = cloud(nQ, d, nQ * 1000 + d, queryCloud);
  const keys = cloud(nK, d, nK * 1000 + d + 1, keyCloud);
  const map = queryKeyMap(queries, keys, d);
  const reference = referenceMap(queries, keys, d);
  expect(map.queries).toHaveLength(nQ * 2);
  expect(map.keys).toHaveLength(nK * 2);
  const diff = largestDifference(map, reference) / spreadOf(reference);
  const shares = Math.max(...map.explained.map((s, axis) => Math.abs(s - reference.explained[axis])));
  process.stdout.write(`[query-key-map] ${nQ} + ${nK} × ${d}: explained ${map.explained.map((s) => s.toFixed(3)).join(', ')}, ` +
    `max |diff| coordinates ${diff.toExponential(2)} of the spread, shares ${shares.toExponential(2)}\n`);
  expect(diff).toBeLessThan(1e-4);
  expect(shares).toBeLessThan(1e-6);
});

// ---- Hand-worked maps. ----

// Four queries on the line through (1, −2), two keys on the line through (2, 1): after the
// normalisation every point has norm 1 and their mean is 0, so the first axis is (1, −2)/√5 (4 of
// the 6 points, share 2/3), the second (2, 1)/√5 (share 1/3). The sign rule makes each axis's
// largest-magnitude coordinate positive: the first is (−1, 2)/√5, so query (1, −2) lands at x = −1;
// the second is (2, 1)/√5, so key (2, 1) lands at y = 1.
const CROSS_QUERIES = [1, -2, -1, 2, 1, -2, -1, 2];
const CROSS_KEYS = [2, 1, -2, -1];
const CROSS_MAP = { queries: [-1, 0, 1, 0, -1, 0, 1, 0], keys: [0, 1, 0, -1], explained: [2 / 3, 1 / 3] };

function expectMap(map, expected) {
  for (const part of ['queries', 'keys', 'explained']) {
    expect(map[part]).toHaveLength(expected[part].length);
    expected[part].forEach((v, i) => expect(map[part][i]).toBeCloseTo(v, 6));
  }
}

test('a hand-worked map comes out as worked, each axis signed by its largest coordinate', () => {
  expectMap(queryKeyMap(Float32Array.from(CROSS_QUERIES), Float32Array.from(CROSS_KEYS), 2), CROSS_MAP);
});

test('moving the keys off the queries and scaling each set differently draws the same map', () => {
  const queries = Float32Array.from(CROSS_QUERIES, (v) => 0.25 * v);
  const keys = Float32Array.from(CROSS_KEYS, (v, i) => 7 * v + (i % 2 ? -5 : 3));
  expectMap(queryKeyMap(queries, keys, 2), CROSS_MAP);
});

test('width 1: keys moved onto the queries\' mean, each set scaled to mean norm 1, no second axis', () => {
  // Queries 1, 3 (mean 2, mean norm 2) become 0.5, 1.5. Keys 10, 14 move by 2 − 12 to 0, 4
  // (mean norm 2) and become 0, 2. The union's mean is 1.
  expectMap(queryKeyMap(Float32Array.of(1, 3), Float32Array.of(10, 14), 1),
    { queries: [-0.5, 0, 0.5, 0], keys: [-1, 0, 1, 0], explained: [1, 0] });
});

test('on any points, offsetting every key or scaling both sets by one factor does not move the map', () => {
  const d = 16;
  const queries = cloud(40, d, 1, { offset: 1 });
  const keys = cloud(30, d, 2, { offset: 2 });
  const base = queryKeyMap(queries, keys, d);
  const offset = randomValues(d, 3, 10);
  const moved = queryKeyMap(queries, keys.map((v, i) => v + offset[i % d]), d);
  const scaled = queryKeyMap(queries.map((v) => v * 8), keys.map((v) => v * 8), d);
  for (const other of [moved, scaled]) {
    expectMap(other, { queries: Array.from(base.queries), keys: Array.from(base.keys), explained: base.explained });
  }
  // And the map does depend on its input: scaling the queries alone moves them against the keys'
  // mean, which these have away from 0.
  const queriesAlone = queryKeyMap(queries.map((v) => v * 8), keys, d);
  expect(Math.max(...queriesAlone.keys.map((v, i) => Math.abs(v - base.keys[i])))).toBeGreaterThan(1e-3);
});

test('the size of the numbers does not matter, from 1e-30 to 1e30', () => {
  const d = 5;
  const queries = cloud(12, d, 4, { offset: 1 });
  const keys = cloud(9, d, 5, { offset: 1 });
  const base = queryKeyMap(queries, keys, d);
  for (const factor of [1e-30, 1e30]) {
    const map = queryKeyMap(queries.map((v) => v * factor), keys.map((v) => v * factor), d);
    expectMap(map, { queries: Array.from(base.queries), keys: Array.from(base.keys), explained: base.explained });
  }
});

// ---- Degenerate inputs. ----

const allFinite = (map) => [...map.queries, ...map.keys, ...map.explained].every(Number.isFinite);
const repeat = (row, n) => Float32Array.from({ length: n * row.length }, (_, i) => row[i % row.length]);
const allZero = (map) => [...map.queries, ...map.keys, ...map.explained].every((v) => v === 0);

test.each([
  ['one query and one key (the move puts them on one point)', Float32Array.of(1, 2, 3), Float32Array.of(-4, 5, 0.5), 3],
  ['every point the same', new Float32Array(5 * 4).fill(0.1), new Float32Array(3 * 4).fill(0.1), 4],
  // Rounding in the means leaves these 1e-16 apart: the shares must not read it as a direction.
  ['every query the same and every key the same', repeat([1.1, -2.3, 0.7], 10), repeat([5.5, 3.3, -1.9], 13), 3],
  ['every query and key the same', repeat([0.1, 0.2, 0.3, 0.4], 5), repeat([0.1, 0.2, 0.3, 0.4], 3), 4],
  ['all zeros', new Float32Array(4 * 2), new Float32Array(4 * 2), 2],
  ['one token of width 1', Float32Array.of(2), Float32Array.of(3), 1],
])('%s: every coordinate and both shares are 0', (name, queries, keys, d) => {
  const map = queryKeyMap(queries, keys, d);
  expect(map.queries).toHaveLength(queries.length / d * 2);
  expect(map.keys).toHaveLength(keys.length / d * 2);
  expect(allZero(map)).toBe(true);
});

test('points on one line: one axis explains everything, the other is 0', () => {
  const direction = [0.3, -1, 2];
  const line = (ts) => Float32Array.from(ts.flatMap((t) => direction.map((c) => t * c)));
  const map = queryKeyMap(line([1, 2, -0.5, 4]), line([3, -1, 0.25]), 3);
  expect(allFinite(map)).toBe(true);
  expect(map.explained[0]).toBeCloseTo(1, 9);
  expect(map.explained[1]).toBeCloseTo(0, 9);
  for (const part of [map.queries, map.keys]) {
    for (let i = 1; i < part.length; i += 2) expect(Math.abs(part[i])).toBeLessThan(1e-6);
  }
});

test('fewer points than dimensions, queries all zero: finite, and the zero queries stay unscaled at the centre', () => {
  const keys = cloud(3, 32, 6, NOISE);
  const map = queryKeyMap(new Float32Array(2 * 32), keys, 32);
  expect(allFinite(map)).toBe(true);
  // The keys are moved to mean 0, the queries' mean, so the union's mean is 0 and the zero
  // queries land on the origin.
  expect(map.queries).toHaveLength(4);
  for (const v of map.queries) expect(Math.abs(v)).toBeLessThan(1e-9);
  expect(map.explained[0] + map.explained[1]).toBeCloseTo(1, 9); // 3 keys about their mean span a plane
});

// ---- The result and the arguments. ----

test('the result is frozen, and the arguments are left as they were', () => {
  const queries = cloud(4, 3, 7, NOISE), keys = cloud(6, 3, 8, NOISE);
  const [q, k] = [queries.slice(), keys.slice()];
  const map = queryKeyMap(queries, keys, 3);
  expect(Object.isFrozen(map)).toBe(true);
  expect(Object.isFrozen(map.explained)).toBe(true);
  expect(() => { map.queries = null; }).toThrow(TypeError);
  expect(() => { map.explained[0] = 1; }).toThrow(TypeError);
  expect(map.queries).toBeInstanceOf(Float32Array);
  expect(map.keys).toBeInstanceOf(Float32Array);
  expect(queries).toEqual(q);
  expect(keys).toEqual(k);
});

const [F4, F8] = [new Float32Array(4), new Float32Array(8)];
test.each([
  ['headDim 0', [F4, F4, 0], RangeError, 'queryKeyMap: headDim must be from 1 to 512, got 0'],
  ['headDim 2.5', [F4, F4, 2.5], TypeError, 'queryKeyMap: headDim must be an integer, got number 2.5'],
  ['headDim "2"', [F4, F4, '2'], TypeError, 'queryKeyMap: headDim must be an integer, got the string "2"'],
  ['10 query values at headDim 4', [new Float32Array(10), F8, 4], RangeError,
    'queryKeyMap: queries has 10 values, not a whole number of rows of headDim = 4'],
  ['6 key values at headDim 4', [F8, new Float32Array(6), 4], RangeError,
    'queryKeyMap: keys has 6 values, not a whole number of rows of headDim = 4'],
  ['no queries', [new Float32Array(0), F4, 4], RangeError, 'queryKeyMap: queries is empty: it needs at least one row of headDim = 4 values'],
  ['no keys', [F4, new Float32Array(0), 4], RangeError, 'queryKeyMap: keys is empty'],
  ['null queries', [null, F4, 4], TypeError, 'queryKeyMap: queries must be a Float32Array of (rows × headDim) values, got null'],
  ['bytes for keys', [F4, new Uint8Array(4), 4], TypeError,
    'queryKeyMap: keys must be a Float32Array of (rows × headDim) values, got a Uint8Array of length 4'],
  ['a NaN key', [F4, Float32Array.of(0, 1, NaN, 2), 4], RangeError, 'queryKeyMap: keys[2] is number NaN; every value must be a finite number'],
])('%s gets an error that names the argument', (what, args, Type, message) => {
  expect(() => queryKeyMap(...args)).toThrow(Type);
  expect(() => queryKeyMap(...args)).toThrow(message);
});
