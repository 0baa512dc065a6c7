// The result of one attention forward pass. From forward(): plain JavaScript data, copied out of
// WASM memory, so it stays valid after later calls, memory growth or dispose(); accessors return
// fresh copies. From forwardView(): views of WASM memory, valid until the next call into the engine;
// every accessor of such a trace first asks its layer whether the views still hold this pass's data,
// and throws if not, rather than silently showing another pass's numbers or freed memory.
import { checkInteger } from '../check.js';

/**
 * `weights` (a Float32Array) with its shape as read-only properties: its rows are queries, its
 * columns keys. Not enumerable, so the array still compares, copies and logs as a plain one.
 */
export function withShape(weights, nQueries, nKeys) {
  return Object.defineProperties(weights, { nQueries: { value: nQueries }, nKeys: { value: nKeys } });
}

export class AttentionTrace {
  #data; // { q, qBeforeRotation, concat: (nQueries, numHeads·headDim); k, kBeforeRotation, v: (nKeys, numKeyValueHeads·headDim); output: (nQueries, dModel); scores, weights: (numHeads, nQueries, nKeys) }, all Float32Array
  #current; // for a view: () => true while its views still show this pass

  /**
   * @internal Built by Attention.forward and forwardView, and by a model's trace(layer), from the
   * bindings' result, which carries the pass's shape: nQueries, nKeys, numKeyValueHeads, headDim.
   */
  constructor(data, dModel, numHeads, view, current = () => true) {
    this.#data = data;
    this.#current = current;
    this.view = view;
    this.nQueries = data.nQueries;
    this.nKeys = data.nKeys;
    this.nTokens = data.nQueries; // self-attention's count, as before queries and keys could differ
    this.dModel = dModel;
    this.numHeads = numHeads;
    this.numKeyValueHeads = data.numKeyValueHeads;
    this.headDim = data.headDim;
    this.dHead = data.headDim; // the name before headDim; the same number
    Object.freeze(this);
  }

  /** The key/value head query head `head` reads: head / (numHeads / numKeyValueHeads). */
  kvHead(head) {
    return Math.floor(this.#head(head) / (this.numHeads / this.numKeyValueHeads));
  }

  /** Attention weights of one head: (nQueries × nKeys) row-major, query rows by key columns; the array carries its shape. */
  weights(head) {
    return withShape(this.#perHead('weights', head), this.nQueries, this.nKeys);
  }

  /** Scaled scores Q_i·K_gᵀ/√headDim of one head, (nQueries × nKeys); -Infinity where a key is hidden. */
  scores(head) {
    return withShape(this.#perHead('scores', head), this.nQueries, this.nKeys);
  }

  /** Q_i, the queries of one head: (nQueries × headDim). */
  queries(head) {
    return this.#columns('q', this.#head(head), this.nQueries, this.numHeads);
  }

  /** K_g, the keys of the key/value head that `head` reads: (nKeys × headDim). */
  keys(head) {
    return this.#columns('k', this.kvHead(head), this.nKeys, this.numKeyValueHeads);
  }

  /**
   * Q_i before the rotation (RoPE), after any norm of each head's queries: (nQueries × headDim).
   * The same as queries(head) in a layer that does not rotate.
   */
  queriesBeforeRotation(head) {
    return this.#columns('qBeforeRotation', this.#head(head), this.nQueries, this.numHeads);
  }

  /** K_g before the rotation, as queriesBeforeRotation: (nKeys × headDim). */
  keysBeforeRotation(head) {
    return this.#columns('kBeforeRotation', this.kvHead(head), this.nKeys, this.numKeyValueHeads);
  }

  /** V_g, the values of the key/value head that `head` reads: (nKeys × headDim). */
  values(head) {
    return this.#columns('v', this.kvHead(head), this.nKeys, this.numKeyValueHeads);
  }

  /** One head's output, weights(head)·values(head): (nQueries × headDim). */
  headOutput(head) {
    return this.#columns('concat', this.#head(head), this.nQueries, this.numHeads);
  }

  /** Every head's output side by side: (nQueries × numHeads·headDim). */
  concat() {
    return this.#whole('concat');
  }

  /** The layer's output, concat()·W_o + b_o: (nQueries × dModel). */
  output() {
    return this.#whole('output');
  }

  #head(head) {
    return checkInteger('head', head, 0, this.numHeads - 1);
  }

  #read(name) {
    if (!this.#current()) {
      throw new Error('This trace from forwardView() is out of date: its layer has run again or been disposed, or WASM ' +
        'memory has grown, since it was made. Copy what you need (.slice()) before the next call, or use forward().');
    }
    return this.#data[name];
  }

  #whole(name) {
    return this.view ? this.#read(name) : this.#read(name).slice();
  }

  #perHead(name, head) {
    const size = this.nQueries * this.nKeys;
    const start = this.#head(head) * size;
    const part = this.#read(name).subarray(start, start + size);
    return this.view ? part : part.slice();
  }

  /** Columns [index·headDim, (index+1)·headDim) of a (rows × heads·headDim) matrix, as (rows × headDim). */
  #columns(name, index, rows, heads) {
    const dh = this.headDim, width = heads * dh, first = index * dh;
    const all = this.#read(name);
    const out = new Float32Array(rows * dh);
    for (let i = 0; i < rows; i++) out.set(all.subarray(i * width + first, i * width + first + dh), i * dh);
    return out;
  }
}
