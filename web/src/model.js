// A transformer model living in WASM memory: text in, every layer's attention out.
import { checkBytes, checkInteger, describe } from './check.js';
import { NativeHandle, orThrow } from './native.js';
import { loadTokenizer } from './tokenizer.js';
import { AttentionTrace } from './trace.js';

export class Model {
  #module;
  #native; // NativeHandle of the embind Model
  #tokenizer;

  /** @internal Use engine.loadModel(). */
  constructor(module, native, tokenizer, onDispose) {
    this.#module = module;
    this.#native = new NativeHandle(native, 'model', () => onDispose(this));
    this.#tokenizer = tokenizer;
    const c = module.modelConfig(native);
    this.vocabSize = c.vocabSize;
    this.dModel = c.dModel;
    this.numLayers = c.numLayers;
    this.numHeads = c.numHeads;
    this.maxTokens = c.maxPositions;
    Object.freeze(this);
  }

  /** @internal */
  static async create(module, files, onDispose) {
    // The tokenizer is checked first, so a bad one fails before any weight is loaded; its ids can be
    // checked against the vocabulary only once the native model has read config.json.
    const tokenizer = await loadTokenizer(files.tokenizer);
    // Checked again after that wait: the caller's buffer may have been detached meanwhile.
    const native = orThrow(module.loadModel(files.config, checkBytes('model.safetensors', files.weights)));
    try {
      tokenizer.checkVocabularySize(module.modelConfig(native).vocabSize);
    } catch (error) {
      native.delete(); // a refused model leaves nothing in WASM memory
      throw error;
    }
    return new Model(module, native, tokenizer, onDispose);
  }

  /**
   * Tokenizes `text` and runs the model. Text longer than the model's positions is truncated
   * (the result says so); empty text is an error.
   */
  run(text) {
    const native = this.#native.get(); // throws if disposed
    if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${describe(text)}`);
    if (text.trim() === '') throw new RangeError('text is empty: type at least one word');
    const encoded = this.#tokenizer.encode(text);
    const total = encoded.ids.length;
    const keep = Math.min(total, this.maxTokens);
    // Keep the closing token (e.g. [SEP]) when truncating, as the model was trained with it.
    const pick = (list) => (keep === total ? list : [...list.slice(0, keep - 1), list[total - 1]]);
    const ids = Int32Array.from(pick(encoded.ids));
    const raw = orThrow(this.#module.runModel(native, ids));
    return new ModelResult(raw, ids, pick(encoded.tokens), pick(encoded.unknown), total, this);
  }

  /** Frees the model's WASM memory. Later calls throw; a second dispose() does nothing. */
  dispose() {
    this.#native.dispose();
  }

  get disposed() {
    return this.#native.disposed;
  }
}

/** What model.run() returns: plain JavaScript data, valid after dispose(). */
export class ModelResult {
  #layers; // AttentionTrace per layer
  #inputs; // Float32Array (n, dModel) per layer

  constructor(raw, ids, tokens, unknown, totalTokens, model) {
    const n = ids.length;
    this.tokens = tokens;
    this.ids = ids;
    this.unknown = unknown;
    this.truncated = totalTokens > n;
    this.totalTokens = totalTokens;
    this.layers = model.numLayers;
    this.heads = model.numHeads;
    this.hidden = raw.hidden; // (n, dModel)
    this.#inputs = raw.inputs;
    this.#layers = raw.layers.map((t) => new AttentionTrace(t, n, model.dModel, model.numHeads, false));
    Object.freeze(this);
  }

  /** Attention weights of one head in one layer, (n × n) row-major: query rows, key columns. */
  attention(layer, head) {
    return this.trace(layer).weights(head);
  }

  /** What one layer's attention reads, (n × dModel): the embeddings for layer 0, else the previous layer's output. */
  layerInput(layer) {
    return this.#inputs[checkInteger('layer', layer, 0, this.layers - 1)].slice();
  }

  /** Every intermediate of one layer's attention. */
  trace(layer) {
    return this.#layers[checkInteger('layer', layer, 0, this.layers - 1)];
  }
}
