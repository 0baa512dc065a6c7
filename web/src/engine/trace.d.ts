/** One head's attention weights or scores, (nQueries × nKeys) row-major, carrying its shape. */
export type HeadWeights = Float32Array & { readonly nQueries: number; readonly nKeys: number };

/**
 * Everything one forward pass computed. Every accessor returns a row-major Float32Array and throws
 * a RangeError for a head outside 0…numHeads−1.
 *
 * From `forward()`: plain JavaScript data that stays valid after later calls and after dispose();
 * every accessor returns a new copy. From `forwardView()` (`view` is true): `weights`, `scores`,
 * `concat` and `output` return views of WASM memory, valid only until the next call into the
 * engine (copy them with `.slice()` to keep them); the per-head columns are always copies. Once
 * its layer has run forwardView() again or been disposed, or WASM memory has grown, every accessor
 * of such a trace throws an Error saying it is out of date (an array it already returned cannot
 * tell: do not keep those).
 */
export class AttentionTrace {
  private constructor();
  /** True for a trace from forwardView(), whose arrays are short-lived views. */
  readonly view: boolean;
  /** Rows of queries: the tokens asking. */
  readonly nQueries: number;
  /** Rows of keys and values: the tokens looked at. In self-attention, nKeys = nQueries. */
  readonly nKeys: number;
  /** nQueries, as self-attention counts its tokens. */
  readonly nTokens: number;
  readonly dModel: number;
  readonly numHeads: number;
  readonly numKeyValueHeads: number;
  readonly headDim: number;
  /** The same as headDim (its name before key/value heads came). */
  readonly dHead: number;
  /** The key/value head that query head `head` reads: floor(head / (numHeads / numKeyValueHeads)). */
  kvHead(head: number): number;
  /** Attention weights of a head, (nQueries × nKeys): row = query, column = key; rows sum to 1. */
  weights(head: number): HeadWeights;
  /** Scaled scores Q_i·K_gᵀ/√headDim of a head, (nQueries × nKeys); -Infinity where a key is hidden. */
  scores(head: number): HeadWeights;
  /**
   * Q_i = X·W_q + b_q restricted to the head's columns, (nQueries × headDim), as the scores use it:
   * after any norm of each head's queries (Qwen3, Gemma 3) and the rotation (RoPE), if the layer has them.
   */
  queries(head: number): Float32Array;
  /** K_g, the keys of the key/value head the head reads, (nKeys × headDim), as queries() after norm and rotation. */
  keys(head: number): Float32Array;
  /** Q_i before the rotation (after any head norm); queries(head) itself in a layer without RoPE. */
  queriesBeforeRotation(head: number): Float32Array;
  /** K_g before the rotation (after any head norm); keys(head) itself in a layer without RoPE. */
  keysBeforeRotation(head: number): Float32Array;
  /** V_g, the values of the key/value head the head reads, (nKeys × headDim). */
  values(head: number): Float32Array;
  /** The head's output weights(head)·values(head), (nQueries × headDim). */
  headOutput(head: number): Float32Array;
  /** Every head's output side by side, (nQueries × numHeads·headDim). */
  concat(): Float32Array;
  /** The layer's output concat()·W_o + b_o, (nQueries × dModel). */
  output(): Float32Array;
}
