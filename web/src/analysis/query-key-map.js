// One head's queries and keys drawn on one map, as AttentionViz draws them (Yeh et al. 2023,
// "AttentionViz: A Global View of Transformer Attention", §4.1): the two sets are normalised so
// that they share a centre and a scale, then projected together onto the union's top two
// principal axes. Plain JavaScript over (n × headDim) rows, such as an AttentionTrace's
// queries(head) and keys(head), computed in float64.
//
// It does not draw, and it does not offer t-SNE or UMAP (AttentionViz's other projections): PCA is
// linear and gives the same map for the same rows on every run, so two heads' maps can be compared.
// It neither rotates (RoPE) nor scales by 1/√headDim: it maps the rows it is given.
import { checkFloats, checkInteger, describe } from '../check.js';

// Real models' heads are 64 to 256 wide. The work grows as headDim² per point plus headDim³ for
// the eigenvectors: with 2048 points, 12 ms at 64 in Node (45 ms for the very first call), 0.2 s at
// 256 and 1 s at 512. The bound keeps a mistaken width from hanging the page.
const MAX_HEAD_DIM = 512;

/**
 * Where each query and each key of one head falls on a shared 2-D map.
 *
 * Why it is worth looking at: a head scores key j for query i by the dot product q_i · k_j. On
 * this map a query lies near the keys it scores highest, so clusters show which tokens look at
 * which. Closeness stands for a large dot product through |q − k|² = |q|² + |k|² − 2 q·k: exactly
 * so among keys of equal norm, roughly otherwise, and only as far as two axes can hold the
 * headDim-wide picture (`explained` says how much of the spread they hold).
 *
 * The normalisation, in AttentionViz's order:
 * 1. The keys are moved so that their mean equals the queries' mean: k_j ← k_j − mean(K) + mean(Q).
 *    Without this the two sets often sit in separate corners of the map and never mix.
 * 2. The queries are scaled by one factor so that their mean norm is 1, and the keys (as moved) by
 *    another so that theirs is 1. A set whose mean norm is 0 is left as it is.
 *
 * What it keeps: the queries' directions and their norms relative to one another, and the shape of
 * each set (the differences between its points), each up to one uniform scale. For every query the
 * keys rank in the same order by dot product as before, so the map still says which keys each query
 * favours. What it loses: the keys' mean offset, and with it what that offset did to the keys'
 * directions and norms. Softmax never sees it: adding one vector c to every key adds the same q·c
 * to all of a query's scores. It also loses the absolute scale of the scores, which sets how sharp
 * the softmax is (its temperature). So the map shows which keys a query prefers, not how strongly:
 * a head that spreads its attention evenly and one that puts it all on one key can draw the same
 * map.
 *
 * Then PCA of the union of the nQ + nK normalised points: centred on their common mean, projected
 * onto the two eigenvectors of their (headDim × headDim) covariance with the largest eigenvalues,
 * largest first. Each axis's sign is chosen so that the largest-magnitude coordinate of its
 * eigenvector is positive (the first such coordinate on a tie), so the same rows always give the
 * same picture, not its mirror image.
 *
 * queries: (nQ × headDim) and keys: (nK × headDim), row-major, one row per token, as Float32Arrays
 * (a Float64Array or an Array is read as float32 too); nQ and nK are read from the lengths. Returns a frozen { queries: (nQ × 2), keys: (nK × 2), explained }, the
 * coordinates as Float32Arrays of [x, y] pairs, and explained = [share1, share2], each axis's
 * eigenvalue over the sum of all eigenvalues (the union's total variance). With headDim 1 the
 * second axis is all zeros with share 0; when every point is the same (one query and one key, for
 * instance, are moved onto each other), every coordinate and both shares are 0.
 */
export function queryKeyMap(queries, keys, headDim) {
  checkInteger('queryKeyMap: headDim', headDim, 1, MAX_HEAD_DIM);
  const q = rowsOf('queries', queries, headDim); // (nQ, headDim)
  const k = rowsOf('keys', keys, headDim); // (nK, headDim)
  const d = headDim;
  const points = normalise(q, k, d); // (nQ + nK, d), queries first
  const n = points.length / d;
  const size = meanSquaredNorm(points, d);
  centre(points, d);
  const cov = covariance(points, d); // (d, d)
  let total = 0;
  for (let i = 0; i < d; i++) total += cov[i * d + i];

  const nQ = q.length / d;
  const coords = new Float64Array(n * 2); // (n, 2)
  const explained = [0, 0];
  // A spread this far below float32's resolution can only be rounding in the mean: every point is
  // the same, and any axis picked from it would be noise.
  if (total > 1e-24 * size) {
    const { values, vectors } = symmetricEigen(cov, d);
    const order = Array.from(values.keys()).sort((a, b) => values[b] - values[a] || a - b);
    for (let axis = 0; axis < Math.min(2, d); axis++) {
      const v = row(vectors, order[axis], d);
      fixSign(v);
      explained[axis] = Math.max(values[order[axis]], 0) / total;
      for (let i = 0; i < n; i++) coords[i * 2 + axis] = dot(row(points, i, d), v);
    }
  }
  return Object.freeze({
    queries: Float32Array.from(coords.subarray(0, nQ * 2)),
    keys: Float32Array.from(coords.subarray(nQ * 2)),
    explained: Object.freeze(explained),
  });
}

/** `value` checked to hold whole rows of `d` finite numbers, as a Float32Array snapshot. */
function rowsOf(name, value, d) {
  const what = `queryKeyMap: ${name}`;
  if (!(value instanceof Float32Array) && !(value instanceof Float64Array) && !Array.isArray(value)) {
    throw new TypeError(`${what} must be a Float32Array of (rows × headDim) values, got ${describe(value)}`);
  }
  const length = value.length;
  if (length === 0) throw new RangeError(`${what} is empty: it needs at least one row of headDim = ${d} values`);
  if (length % d !== 0) {
    throw new RangeError(`${what} has ${length} values, not a whole number of rows of headDim = ${d}`);
  }
  return checkFloats(what, value, length, `${length / d} rows × headDim ${d}`);
}

/**
 * The queries then the keys as one (nQ + nK, d) Float64Array, normalised as queryKeyMap's comment
 * says: keys moved onto the queries' mean, then each set scaled to a mean norm of 1.
 */
function normalise(q, k, d) {
  const points = new Float64Array(q.length + k.length);
  points.set(q);
  points.set(k, q.length);
  const queries = points.subarray(0, q.length);
  const keys = points.subarray(q.length);
  const shift = meanRow(queries, d);
  addScaled(shift, -1, meanRow(keys, d));
  for (let i = 0; i < keys.length / d; i++) addScaled(row(keys, i, d), 1, shift);
  scaleToUnitMeanNorm(queries, d);
  scaleToUnitMeanNorm(keys, d);
  return points;
}

/** Row i of the (n, d) `rows`, as a view. */
function row(rows, i, d) {
  return rows.subarray(i * d, (i + 1) * d);
}

/** The mean of the rows of `rows` (n, d): (d). */
function meanRow(rows, d) {
  const n = rows.length / d;
  const mean = new Float64Array(d);
  for (let i = 0; i < n; i++) addScaled(mean, 1 / n, row(rows, i, d));
  return mean;
}

function scaleToUnitMeanNorm(rows, d) {
  const n = rows.length / d;
  let sum = 0;
  // Float32 inputs cannot overflow the squares: (3.4e38)² is far inside float64's range.
  for (let i = 0; i < n; i++) sum += Math.sqrt(dot(row(rows, i, d), row(rows, i, d)));
  if (sum === 0) return;
  const factor = n / sum;
  for (let i = 0; i < rows.length; i++) rows[i] *= factor;
}

function meanSquaredNorm(rows, d) {
  return dot(rows, rows) / (rows.length / d);
}

/** Moves the rows of `rows` (n, d) so that their mean is 0, in place. */
function centre(rows, d) {
  const mean = meanRow(rows, d);
  for (let i = 0; i < rows.length / d; i++) addScaled(row(rows, i, d), -1, mean);
}

/**
 * (1/n) Σ x xᵀ over the rows of centred `rows` (n, d): their (d, d) covariance. Summed from the
 * centred rows, not as E[x xᵀ] − mean meanᵀ, which cancels badly when the points sit far from 0.
 * Each entry is a dot product of two columns, copied out once so that it reads memory in order
 * and sums in registers: the covariance is most of the time at every size but the widest.
 */
function covariance(rows, d) {
  const n = rows.length / d;
  const columns = new Float64Array(rows.length); // (d, n)
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < d; c++) columns[c * n + i] = rows[i * d + c];
  }
  const cov = new Float64Array(d * d);
  for (let a = 0; a < d; a++) {
    const x = row(columns, a, n);
    for (let b = a; b < d; b++) {
      const y = row(columns, b, n);
      cov[a * d + b] = cov[b * d + a] = dot(x, y) / n;
    }
  }
  return cov;
}

/** x · y. Four running sums, not one, so that each add need not wait for the last: twice as fast in V8. */
function dot(x, y) {
  const n = x.length, whole = n - (n % 4);
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (let i = 0; i < whole; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  for (let i = whole; i < n; i++) s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

/**
 * Every eigenvalue and eigenvector of the symmetric (d, d) matrix `a`, in the textbook way (Golub &
 * Van Loan, "Matrix Computations", §8.3): Householder reflections bring `a` to a tridiagonal T with
 * a ← Q T Qᵀ, then implicit QL steps with Wilkinson's shift diagonalise T, each step's rotations
 * also applied to Q. About 9·d³ operations, 0.1 s at d = 256; cyclic Jacobi, shorter to write,
 * needed 10 sweeps of 6·d³ here, half a second. `a` is overwritten. Returns { values: (d), vectors: (d, d) }, eigenvector i
 * in row i, in no particular order.
 */
function symmetricEigen(a, d) {
  const { diag, off, vectors } = tridiagonalise(a, d);
  diagonaliseTridiagonal(diag, off, vectors, d);
  return { values: diag, vectors };
}

/**
 * Householder tridiagonalisation of the symmetric (d, d) matrix `a` (overwritten). Returns T as
 * diag (d) and off (d), off[i] = T[i][i+1] and off[d-1] = 0, with vectors = Qᵀ (d, d): row i of
 * vectors is column i of Q, so that the QL step's rotations, which mix Q's columns, run along rows.
 */
function tridiagonalise(a, d) {
  const diag = new Float64Array(d);
  const off = new Float64Array(d);
  const reflections = []; // step k: { v: (d - k - 1), beta }, H_k = I − beta v vᵀ on indices k+1 … d-1
  for (let k = 0; k < d - 2; k++) {
    const first = k + 1, m = d - first;
    const v = a.slice(k * d + first, (k + 1) * d); // a's column k below the diagonal (its row k, by symmetry)
    const alpha = Math.sqrt(dot(v, v));
    if (alpha === 0) { // already zero below T's band: no reflection
      reflections.push(null);
      continue;
    }
    // H x = −sign(x₀)·|x|·e₀. Adding, not subtracting, |x| to x₀ keeps v₀ clear of cancellation.
    const sign = v[0] >= 0 ? 1 : -1;
    const beta = 1 / (alpha * (alpha + Math.abs(v[0])));
    v[0] += sign * alpha;
    off[k] = -sign * alpha;
    // B ← H B H for the trailing block B = a[first…, first…]: with p = beta·B v and
    // w = p − (beta·pᵀv / 2)·v, H B H = B − v wᵀ − w vᵀ.
    const blockRow = (i) => a.subarray((first + i) * d + first, (first + i + 1) * d);
    const w = new Float64Array(m);
    for (let i = 0; i < m; i++) w[i] = beta * dot(blockRow(i), v);
    addScaled(w, -beta * dot(w, v) / 2, v);
    // b_ij and b_ji subtract the same two products, summed in either order to the same number, so
    // the block stays exactly symmetric.
    for (let i = 0; i < m; i++) subtractOuterPair(blockRow(i), v[i], w, w[i], v);
    reflections.push({ v, beta });
  }
  for (let i = 0; i < d; i++) diag[i] = a[i * d + i];
  if (d >= 2) off[d - 2] = a[(d - 2) * d + d - 1];

  // Qᵀ = H_{d-3} ⋯ H_1 H_0, built by right-multiplying by H_k from the last k down: before H_k
  // the product is the identity outside rows and columns k+2 …, so only rows and columns from
  // k+1 change.
  const vectors = new Float64Array(d * d);
  for (let i = 0; i < d; i++) vectors[i * d + i] = 1;
  for (let k = reflections.length - 1; k >= 0; k--) {
    if (!reflections[k]) continue;
    const { v, beta } = reflections[k];
    const first = k + 1;
    for (let r = first; r < d; r++) {
      const tail = vectors.subarray(r * d + first, (r + 1) * d);
      addScaled(tail, -beta * dot(tail, v), v);
    }
  }
  return { diag, off, vectors };
}

/**
 * Diagonalises the symmetric tridiagonal T (diag, off as tridiagonalise returns them) in place by
 * implicit QL steps with Wilkinson's shift, applying each rotation to the rows of `vectors` (d, d).
 * Afterwards diag holds the eigenvalues and row i of `vectors` the eigenvector of diag[i].
 */
function diagonaliseTridiagonal(diag, off, vectors, d) {
  // An off-diagonal entry this small next to the whole of T is rounding: treat it as 0 and split T
  // there. Measured against all of T, not its neighbours, so tiny eigenvalues (a rank-deficient
  // covariance has many) need no more steps than large ones; the top two are still accurate.
  let norm = 0;
  for (let i = 0; i < d; i++) norm = Math.max(norm, Math.abs(diag[i]) + Math.abs(off[i]));
  const small = Number.EPSILON * norm;
  for (let l = 0; l < d; l++) {
    for (let steps = 0; ; steps++) {
      let m = l;
      while (m < d - 1 && Math.abs(off[m]) > small) m++;
      if (m === l) break; // diag[l] is an eigenvalue
      if (steps === 100) throw new Error('queryKeyMap: the eigenvalues did not converge (a bug: please report it)');
      // The shift: the eigenvalue of T's top-left 2 × 2 block at l nearer to diag[l].
      let g = (diag[l + 1] - diag[l]) / (2 * off[l]);
      let r = Math.hypot(g, 1);
      g = diag[m] - diag[l] + off[l] / (g + (g >= 0 ? r : -r));
      // Chase the bulge from the bottom of the block (m) up to l with Givens rotations.
      let s = 1, c = 1, p = 0, i;
      for (i = m - 1; i >= l; i--) {
        const f = s * off[i], b = c * off[i];
        r = Math.hypot(f, g);
        off[i + 1] = r;
        if (r === 0) { // underflow: T splits here; recover and start again
          diag[i + 1] -= p;
          off[m] = 0;
          break;
        }
        s = f / r;
        c = g / r;
        g = diag[i + 1] - p;
        r = (diag[i] - g) * s + 2 * c * b;
        p = s * r;
        diag[i + 1] = g + p;
        g = c * r - b;
        rotateRows(row(vectors, i, d), row(vectors, i + 1, d), c, s);
      }
      if (r === 0 && i >= l) continue;
      diag[l] -= p;
      off[l] = g;
      off[m] = 0;
    }
  }
}

// The inner loops, as functions of their own: V8 optimises a small function called thousands of
// times within the first call, where a loop inside one long function runs unoptimised for longer.
// That took a first call with 2048 points at headDim 64 from 80 to 45 ms here (later calls take 12).

/** y ← y + factor · x. */
function addScaled(y, factor, x) {
  for (let i = 0; i < y.length; i++) y[i] += factor * x[i];
}

/** row ← row − (a · x + b · y). */
function subtractOuterPair(row, a, x, b, y) {
  for (let j = 0; j < row.length; j++) row[j] -= a * x[j] + b * y[j];
}

/** The Givens rotation [c −s; s c] applied to the pair of rows (lower, upper), in place. */
function rotateRows(lower, upper, c, s) {
  for (let k = 0; k < lower.length; k++) {
    const zl = lower[k], zu = upper[k];
    upper[k] = s * zl + c * zu;
    lower[k] = c * zl - s * zu;
  }
}

/** Flips `v` so that its largest-magnitude coordinate (the first, on a tie) is positive. */
function fixSign(v) {
  let largest = 0;
  for (let i = 1; i < v.length; i++) if (Math.abs(v[i]) > Math.abs(v[largest])) largest = i;
  if (v[largest] < 0) for (let i = 0; i < v.length; i++) v[i] = -v[i];
}
