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
  readonly nTokens: number;
  readonly dModel: number;
  readonly numHeads: number;
  readonly dHead: number;
  /** Attention weights of a head, (nTokens × nTokens): row = query, column = key; rows sum to 1. */
  weights(head: number): Float32Array;
  /** Scaled scores Q_i·K_iᵀ/√dHead of a head, (nTokens × nTokens); -Infinity where a key is hidden. */
  scores(head: number): Float32Array;
  /** Q_i = X·W_q + b_q restricted to the head's columns, (nTokens × dHead). */
  queries(head: number): Float32Array;
  /** K_i, (nTokens × dHead). */
  keys(head: number): Float32Array;
  /** V_i, (nTokens × dHead). */
  values(head: number): Float32Array;
  /** The head's output weights(head)·values(head), (nTokens × dHead). */
  headOutput(head: number): Float32Array;
  /** Every head's output side by side, (nTokens × dModel). */
  concat(): Float32Array;
  /** The layer's output concat()·W_o + b_o, (nTokens × dModel). */
  output(): Float32Array;
}
