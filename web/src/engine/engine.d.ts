import { Attention } from './attention.js';
import { Model } from '../model/model.js';

export interface EngineOptions {
  /**
   * Which WASM build to load. Omitted: the SIMD build where WebAssembly SIMD is supported, the
   * scalar build elsewhere. `false` forces the scalar build; `true` fails where SIMD is missing.
   */
  simd?: boolean;
  /**
   * Within SIMD, whether to load the relaxed-SIMD build, whose multiply-adds may be fused
   * (f32x4.relaxed_madd). Omitted: where the JavaScript engine runs relaxed SIMD (Chromium-based
   * browsers; Node 20 with --experimental-wasm-relaxed-simd), except in the single-file build.
   * `false` forces the plain SIMD build; `true` fails where relaxed SIMD is missing. Results
   * differ from the plain build's by rounding only (see the README).
   */
  relaxedSimd?: boolean;
  /**
   * How many threads a pass may use, 1 to 64; default one per core. The engine runs on one
   * thread where it cannot have more: in a browser page that is not cross-origin isolated (COOP
   * `same-origin` and COEP `require-corp` or `credentialless`), in the single-file build, and with
   * the scalar build. `engine.threads` says how many it got. Results are the same at any count.
   */
  threads?: number;
}

/**
 * Weights of one layer, in the engine's convention Q = X·W_q + b_q, each matrix (in × out)
 * row-major (PyTorch's nn.Linear stores the transpose): wq is (dModel × numHeads·headDim), wk and
 * wv (dModel × numKeyValueHeads·headDim), wo (numHeads·headDim × dModel); each bias has as many
 * values as its matrix has columns. Query head i uses columns [i·headDim, (i+1)·headDim) of Q, and
 * key/value head g the same columns of K and V. With the defaults every matrix is dModel × dModel.
 */
export interface AttentionWeights {
  wq: Float32Array | number[];
  wk: Float32Array | number[];
  wv: Float32Array | number[];
  wo: Float32Array | number[];
  bq: Float32Array | number[];
  bk: Float32Array | number[];
  bv: Float32Array | number[];
  bo: Float32Array | number[];
}

export interface AttentionConfig {
  /** Width of the token vectors, 1 to engine.limits.maxDModel. */
  dModel: number;
  /** Number of (query) heads. Without headDim it must divide dModel. */
  numHeads: number;
  /**
   * Number of key/value heads, shared by the query heads: query head i reads key/value head
   * floor(i / (numHeads / numKeyValueHeads)). It must divide numHeads. Default numHeads (every head
   * its own keys and values); fewer is grouped-query attention, 1 multi-query attention.
   */
  numKeyValueHeads?: number;
  /** Width of each head's queries, keys and values. Default dModel / numHeads. */
  headDim?: number;
  /** Query i sees only keys 0…i. Default false. */
  causal?: boolean;
  /** The layer's weights. Give exactly one of `weights` and `seed`. */
  weights?: AttentionWeights;
  /** Seed (0 to 2³²−1) for deterministic random weights, identical in every build and browser. */
  seed?: number;
}

export interface EngineMemory {
  /** Bytes currently allocated on the WASM heap. Unchanged after create/forward/dispose cycles. */
  usedBytes: number;
  /** Size of the WASM heap; it grows on demand (up to 4 GB, the WASM32 limit) and never shrinks. */
  heapBytes: number;
}

/** A JSON file's content: the parsed object, its text, its bytes, or where to fetch it. */
export type JsonSource = object | string | ArrayBuffer | Uint8Array | URL;

/**
 * The files of a Hugging Face model folder. A Blob or File is a browser's local file. The
 * tokenizer is tokenizer.json, or Marian's source.spm, target.spm and vocab.json (Helsinki-NLP's
 * repositories have no tokenizer.json), or an older T5 copy's spiece.model.
 */
export interface ModelFiles {
  config: JsonSource | Blob;
  tokenizer?: JsonSource | Blob;
  /** Marian's SentencePiece models and vocab.json, instead of tokenizer.json. */
  sourceSpm?: ArrayBuffer | Uint8Array | Blob | URL;
  targetSpm?: ArrayBuffer | Uint8Array | Blob | URL;
  vocab?: JsonSource | Blob;
  /** T5's spiece.model, instead of tokenizer.json. */
  spiece?: ArrayBuffer | Uint8Array | Blob | URL;
  /**
   * model.safetensors: its bytes (an ArrayBuffer, or any typed array or DataView over them, read
   * in place), a Blob or File, or a URL (string or URL) to fetch it from. It is streamed into
   * WASM memory, never copied whole in JavaScript.
   */
  weights: ArrayBuffer | ArrayBufferView | Blob | string | URL;
  /** Optional: generation_config.json, whose eos_token_id (one or a list) says where generate() stops. */
  generationConfig?: JsonSource | Blob;
  /** Optional: tokenizer_config.json, whose chat_template, bos_token and eos_token generate({ messages }) uses. */
  tokenizerConfig?: JsonSource | Blob;
}

/**
 * A model shipped inside the package, loaded with no network: 'default' (a 4-layer, 4-head
 * word-level BERT, a masked LM) or 'causal' (a 2-layer, 4-head word-level GPT-2 trained to show
 * previous-token and induction heads; it predicts the next word) or 'reverse' (a 2 + 2-layer,
 * 4-head BART trained to write a sequence of words reversed; its cross-attention shows the
 * alignment).
 */
export interface BuiltinModel {
  builtin: 'default' | 'causal' | 'reverse';
}

export interface LoadProgress {
  /** 'config.json', 'tokenizer.json' or 'model.safetensors'. */
  file: string;
  /** Bytes of `file` read so far. */
  loaded: number;
  /** Bytes of `file` in all (as loaded when the size is unknown). */
  total: number;
}

export interface LoadOptions {
  /** Where Hub ids are read from. Default 'https://huggingface.co'; any server with its layout. */
  hubUrl?: string | URL;
  /** A Hub branch, tag or commit. Default 'main'. */
  revision?: string;
  /** Called as each file's bytes arrive. */
  onProgress?: (progress: LoadProgress) => void;
  /** Aborting rejects the load with an AbortError and frees everything it allocated. */
  signal?: AbortSignal;
}

/** Loads a WASM build. Throws if the build is missing or `options` are invalid. */
export function loadEngine(options?: EngineOptions): Promise<Engine>;

export class Engine {
  private constructor();
  /** True for the two SIMD builds. */
  readonly simd: boolean;
  /** 'relaxed-simd', 'simd' or 'scalar': the build this engine runs. */
  readonly build: 'relaxed-simd' | 'simd' | 'scalar';
  /** The threads a pass uses, the calling one included: 1 unless the threaded build loaded. */
  readonly threads: number;
  /** Why the threaded build could not load, where loadEngine fell back to one thread for that reason; otherwise null. */
  readonly threadsError: Error | null;
  /** Largest accepted sizes. A forward pass is also refused (RangeError) if it would need over 1 GiB. */
  readonly limits: { readonly maxTokens: number; readonly maxDModel: number };
  /**
   * Every architecture the engine reads, in the order of their model_type: config.json's
   * model_type ('bert', 'gemma3_text', 't5'), the name a sentence gives it ('BERT', 'Gemma 3',
   * 'T5'), and whether it is an encoder–decoder. The engine's own list, so it is never out of date.
   */
  readonly architectures: readonly { readonly modelType: string; readonly name: string; readonly encoderDecoder: boolean }[];
  /**
   * Creates a layer in WASM memory. Throws TypeError/RangeError naming the bad argument.
   * Call `dispose()` on the layer when done: WASM memory is not garbage-collected.
   */
  createAttention(config: AttentionConfig): Attention;
  /**
   * Loads a BERT, DistilBERT, RoBERTa or GPT-2 model (config.json's model_type): the default model
   * inside the package when `source` is omitted or { builtin: 'default' }, the causal one with
   * { builtin: 'causal' }, the encoder–decoder that reverses words with { builtin: 'reverse' }
   * (no network for any); a Hugging
   * Face Hub id ('bert-base-uncased', 'owner/name'), read from {hubUrl}/{id}/resolve/{revision}/
   * and, in browsers, kept in the Cache API; a folder URL holding config.json, tokenizer.json and
   * model.safetensors (a string URL has a scheme, starts with /, ./ or ../, or ends with /; in
   * Node a folder path, absolute or starting with ./ or ../); or the three files. The safetensors
   * header is read and checked with config.json before any weight: a missing, unknown or
   * misshapen tensor, or a model above the memory limit, rejects with an Error naming it.
   * JSON nested more than 64 levels deep is refused, and so is a JSON file past its size, as soon
   * as it passes it (a RangeError): config.json and generation_config.json 4 MiB,
   * tokenizer_config.json 8 MiB, tokenizer.json 64 MiB. A download that breaks off rejects with an
   * Error naming the file and the cause.
   */
  loadModel(source?: string | URL | ModelFiles | BuiltinModel, options?: LoadOptions): Promise<Model>;
  /** Heap usage, for seeing that dispose() returns memory. */
  memory(): EngineMemory;
  /** Disposes every layer and model this engine made, and stops its threads. The engine cannot be used afterwards. */
  dispose(): void;
}
