import { AttentionTrace } from './trace.js';

export interface ForwardOptions {
  /** One entry per key: 1 (or true) = the key is visible, 0 (or false) = hidden (padding). */
  keyMask?: Uint8Array | ArrayLike<number | boolean>;
  /**
   * The rows the keys and values are projected from, (nKeys × dModel) row-major, when they are
   * not x: cross-attention, or a step of generation that reads cached tokens. Without it x gives
   * both, and nKeys and queryPosition must not be given.
   */
  keyValueInput?: Float32Array | ArrayLike<number>;
  /** The number of rows of keyValueInput. */
  nKeys?: number;
  /**
   * The position of x's first row (default 0); key j is at position j. A causal layer lets query r
   * see the keys at positions up to queryPosition + r.
   */
  queryPosition?: number;
}

/**
 * A multi-head self-attention layer living in WASM memory. Every method checks its arguments
 * first and throws a TypeError or RangeError that names the bad one.
 */
export class Attention {
  private constructor();
  readonly dModel: number;
  readonly numHeads: number;
  /** Key/value heads: query head i reads key/value head floor(i / (numHeads / numKeyValueHeads)). */
  readonly numKeyValueHeads: number;
  /** Width of each head's queries, keys and values. */
  readonly headDim: number;
  /** The same as headDim (its name before key/value heads came). */
  readonly dHead: number;
  readonly causal: boolean;
  /** True once dispose() has run. */
  readonly disposed: boolean;
  /**
   * Runs the layer on x, (nTokens × dModel) row-major, and returns every intermediate: the queries
   * come from x, the keys and values from x too, or from options.keyValueInput.
   * A query that can see no key (all hidden) gets zero weights, never NaN.
   */
  forward(x: Float32Array | ArrayLike<number>, nTokens: number, options?: ForwardOptions): AttentionTrace;
  /**
   * forward() without copying: the trace's weights, scores, concat and output are views of WASM
   * memory, valid until the next call into this engine. The layer keeps the buffers they view, and
   * reuses them on every call, until dispose(); forward() frees what it used before returning.
   */
  forwardView(x: Float32Array | ArrayLike<number>, nTokens: number, options?: ForwardOptions): AttentionTrace;
  /** The same computation keeping no intermediates: the output, one row per query, (nTokens × dModel) row-major. */
  output(x: Float32Array | ArrayLike<number>, nTokens: number, options?: ForwardOptions): Float32Array;
  /** Frees the layer's WASM memory. Later calls throw; a second dispose() does nothing. */
  dispose(): void;
}
