// The likeliest tokens of a vocabulary's logits: the k largest without sorting them all, the
// model's probabilities (their softmax), and the nucleus a sampler draws from.

/** Indices of the k largest values, largest first (ties by lower index): one pass, a sorted list of k. */
export function topIndices(values, k) {
  const top = []; // indices, values descending
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (top.length === k && v <= values[top[k - 1]]) continue;
    let at = top.length === k ? k - 1 : top.length;
    while (at > 0 && values[top[at - 1]] < v) at--;
    top.splice(at, 0, i);
    if (top.length > k) top.pop();
  }
  return top;
}

/**
 * The softmax of `logits`: `probability(id)` for any id, and `top`, the k likeliest as
 * { token, id, probability }, likeliest first (ties by lower id).
 */
export function likeliest(logits, k, tokenText) {
  // Indexed loops: a typed array's iterator costs several times as much over a vocabulary of 58,000 (Marian's), every step.
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  const probability = (id) => Math.exp(logits[id] - max) / sum;
  return { probability, top: topIndices(logits, k).map((id) => ({ token: tokenText(id), id, probability: probability(id) })) };
}

/**
 * The likeliest ids of `weights` (ties to the lower id): the first `count` of them, or the fewest
 * whose weights reach `mass`. Found by splitting the ids in place around a pivot's weight (three
 * ways: above, equal, below), expected linear time, and returned in the order found, not sorted:
 * a vocabulary of 150,000 sorted every step would take tens of ms, and a flat distribution's
 * nucleus holds most of it.
 */
export function nucleus(weights, count, mass) {
  const ids = new Int32Array(weights.length);
  for (let i = 0; i < ids.length; i++) ids[i] = i;
  const swap = (a, b) => {
    const t = ids[a];
    ids[a] = ids[b];
    ids[b] = t;
  };
  let lo = 0, hi = ids.length; // ids[0, lo) are kept; the cut is in [lo, hi)
  while (lo < hi) {
    const pivot = weights[ids[(lo + hi) >> 1]];
    let above = lo, i = lo, below = hi, aboveMass = 0, equalMass = 0;
    while (i < below) {
      const w = weights[ids[i]];
      if (w > pivot) {
        aboveMass += w;
        swap(above++, i++);
      } else if (w < pivot) {
        swap(i, --below);
      } else {
        equalMass += w;
        i++;
      }
    }
    // Now ids[lo, above) weigh more than the pivot, [above, below) as much, [below, hi) less.
    if (above - lo >= count || aboveMass >= mass) {
      hi = above; // the cut is among the heavier ones
      continue;
    }
    [count, mass] = [count - (above - lo), mass - aboveMass];
    if (below - above >= count || equalMass >= mass) {
      // The cut is among the pivot's equals: the lower ids first.
      ids.subarray(above, below).sort();
      let end = above;
      for (; end < below && count > 0 && mass > 0; end++, count--) mass -= weights[ids[end]];
      return Array.from(ids.subarray(0, end));
    }
    [count, mass] = [count - (below - above), mass - equalMass];
    lo = below;
  }
  return Array.from(ids.subarray(0, lo));
}
