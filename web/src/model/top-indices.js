// The k largest of many values (a vocabulary's logits) without sorting them all.

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
