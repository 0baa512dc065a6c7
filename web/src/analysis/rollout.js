// Whole-layer and whole-model summaries of attention: the average over a layer's heads, and
// attention rollout across layers. Plain JavaScript over a run's weights (model.run's result, or
// any { layers, heads, tokens, attention(layer, head) }), computed in float64, returned as
// (n × n) row-major Float32Arrays: query rows, key columns.
import { attentionOf } from './attention-source.js';

/**
 * The mean of layer `layer`'s heads: A̅ = (1/H) Σ_h A_h. Each row still sums to 1 (or is all zero
 * where every head's row is). The keys may be other tokens than the queries (result.keyTokens).
 */
export function averageHeads(result, layer) {
  const source = attentionOf(result, 'averageHeads');
  source.checkLayer(layer);
  return Float32Array.from(average(source, layer));
}

/**
 * Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", §3):
 * each layer's head average mixed with the identity for the residual connection,
 * Â_l = (A̅_l + I) / 2, its rows renormalised to sum to 1, then multiplied from the first layer
 * up: R = Â_{L-1} · … · Â_1 · Â_0. Row i says how much of token i's final representation traces
 * back to each input token, if attention were the only way information moved.
 */
export function rollout(result) {
  const source = attentionOf(result, 'rollout');
  const n = source.n;
  if (source.cross) {
    throw new RangeError('rollout follows attention through one stack\'s layers, whose queries and keys are the same tokens; ' +
      `result.keyTokens says these ${n} rows read ${source.nKeys} other tokens (cross-attention)`);
  }
  let rolled = null;
  for (let l = 0; l < source.layers; l++) {
    const mixed = average(source, l);
    for (let i = 0; i < n; i++) {
      // A̅ + I over its row sum: (A̅ + I) / 2 renormalised, in one step. The diagonal keeps every sum ≥ 1.
      mixed[i * n + i] += 1;
      let sum = 0;
      for (let j = 0; j < n; j++) sum += mixed[i * n + j];
      for (let j = 0; j < n; j++) mixed[i * n + j] /= sum;
    }
    rolled = rolled ? multiply(mixed, rolled, n) : mixed;
  }
  return Float32Array.from(rolled);
}

/** Layer l's mean over heads, (n × nKeys) Float64Array. */
function average(source, layer) {
  const { n, nKeys, heads } = source;
  const sum = new Float64Array(n * nKeys);
  for (let h = 0; h < heads; h++) {
    const a = source.attention(layer, h);
    for (let k = 0; k < sum.length; k++) sum[k] += a[k];
  }
  for (let k = 0; k < sum.length; k++) sum[k] /= heads;
  return sum;
}

/** a · b, both (n × n) row-major Float64Arrays. */
function multiply(a, b, n) {
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const v = a[i * n + k];
      if (v === 0) continue; // causal rows are half zeros
      for (let j = 0; j < n; j++) out[i * n + j] += v * b[k * n + j];
    }
  }
  return out;
}
