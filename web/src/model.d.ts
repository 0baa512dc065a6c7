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
  /**
   * One label per position: the slice of the text the token came from, as typed, whatever the
   * tokenizer's normalizer does ("CAT" for the id of "cat", "ING" for the piece "##ing", " cat"
   * with its space for GPT-2's "Ġcat"). Tokens split from one character (a byte-level model's
   * bytes of an emoji) each show that character; tokens the tokenizer adds ([CLS], [SEP], <s>) show
   * as themselves. Where the labelling cannot follow a tokenizer's pipeline exactly (its replay of
   * the pipeline gives other tokens than @huggingface/tokenizers does), every label of that run is
   * the library's own token string instead ("cat", "##ing", "Ġcat"); the ids are the same either way.
   */
  readonly tokens: string[];
  /** The tokenizer's ids, as @huggingface/tokenizers gives them. */
  readonly ids: Int32Array;
  /** True where the text is not in the vocabulary (the token's id is the unknown token's, [UNK]). */
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
