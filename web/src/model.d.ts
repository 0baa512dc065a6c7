import { AttentionTrace } from './trace.js';

/** A BERT-family transformer in WASM memory. Made by engine.loadModel(); dispose() when done. */
export class Model {
  private constructor();
  readonly vocabSize: number;
  readonly dModel: number;
  readonly numLayers: number;
  readonly numHeads: number;
  /** Most tokens one run() keeps, special tokens included (the model's positions). */
  readonly maxTokens: number;
  readonly disposed: boolean;
  /**
   * Tokenizes `text` and runs every layer. Longer text is truncated to maxTokens, keeping the
   * closing special token; the result says so. Empty or whitespace-only text throws a RangeError.
   */
  run(text: string): ModelResult;
  /** Frees the model's WASM memory. Later calls throw; a second dispose() does nothing. */
  dispose(): void;
}

/** What Model.run returns: plain JavaScript data, valid after dispose(). */
export class ModelResult {
  private constructor();
  /** Each token's text as typed (special tokens as themselves), one per position. */
  readonly tokens: string[];
  readonly ids: Int32Array;
  /** True where the token is not in the vocabulary (its id is the unknown token's). */
  readonly unknown: boolean[];
  /** True when the text had more tokens than the model's positions. */
  readonly truncated: boolean;
  /** How many tokens the whole text has; tokens.length when not truncated. */
  readonly totalTokens: number;
  readonly layers: number;
  readonly heads: number;
  /** The last layer's output, (n × dModel) row-major. */
  readonly hidden: Float32Array;
  /** Attention weights of one head in one layer, (n × n): query rows, key columns. */
  attention(layer: number, head: number): Float32Array;
  /**
   * What one layer's attention reads, (n × dModel) row-major: for layer 0 the token + position
   * embeddings after the embedding LayerNorm, for layer l > 0 the output of layer l − 1.
   */
  layerInput(layer: number): Float32Array;
  /** Every intermediate of one layer's attention. */
  trace(layer: number): AttentionTrace;
}
