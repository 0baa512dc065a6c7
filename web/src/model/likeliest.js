// The likeliest tokens of a vocabulary's logits: the k largest without sorting them all, and the
// model's probabilities (their softmax).

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
  let max = -Infinity;
  for (const v of logits) max = Math.max(max, v);
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - max);
  const probability = (id) => Math.exp(logits[id] - max) / sum;
  return { probability, top: topIndices(logits, k).map((id) => ({ token: tokenText(id), id, probability: probability(id) })) };
}
