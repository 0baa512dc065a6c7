// The result of one attention forward pass. From forward(): plain JavaScript data, copied out of
// WASM memory, so it stays valid after later calls, memory growth or dispose(); accessors return
// fresh copies. From forwardView(): views of WASM memory, valid until the next call into the engine;
// every accessor of such a trace first asks its layer whether the views still hold this pass's data,
// and throws if not, rather than silently showing another pass's numbers or freed memory.
import { checkInteger } from './check.js';

export class AttentionTrace {
  #data; // { q, k, v, concat, output: (n, d); scores, weights: (h, n, n) }, all Float32Array
  #current; // for a view: () => true while its views still show this pass

  /** @internal Built by Attention.forward and forwardView from the bindings' result. */
  constructor(data, nTokens, dModel, numHeads, view, current = () => true) {
    this.#data = data;
    this.#current = current;
    this.view = view;
    this.nTokens = nTokens;
    this.dModel = dModel;
    this.numHeads = numHeads;
    this.dHead = dModel / numHeads;
    Object.freeze(this);
  }

  /** Attention weights of one head: (n × n) row-major, query rows by key columns. */
  weights(head) {
    return this.#square('weights', head);
  }

  /** Scaled scores Q_i·K_iᵀ/√d_head of one head, (n × n); -Infinity where a key is hidden. */
  scores(head) {
    return this.#square('scores', head);
  }

  /** Q_i, the queries of one head: (n × d_head). */
  queries(head) {
    return this.#columns('q', head);
  }

  /** K_i, the keys of one head: (n × d_head). */
  keys(head) {
    return this.#columns('k', head);
  }

  /** V_i, the values of one head: (n × d_head). */
  values(head) {
    return this.#columns('v', head);
  }

  /** One head's output, weights(head)·values(head): (n × d_head). */
  headOutput(head) {
    return this.#columns('concat', head);
  }

  /** Every head's output side by side: (n × d_model). */
  concat() {
    return this.#whole('concat');
  }

  /** The layer's output, concat()·W_o + b_o: (n × d_model). */
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

  #square(name, head) {
    const size = this.nTokens * this.nTokens;
    const start = this.#head(head) * size;
    const part = this.#read(name).subarray(start, start + size);
    return this.view ? part : part.slice();
  }

  #columns(name, head) {
    const { nTokens: n, dModel: d, dHead: dh } = this;
    const first = this.#head(head) * dh;
    const all = this.#read(name);
    const out = new Float32Array(n * dh);
    for (let i = 0; i < n; i++) out.set(all.subarray(i * d + first, i * d + first + dh), i * dh);
    return out;
  }
}
