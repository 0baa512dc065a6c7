// A multi-head attention layer living in WASM memory. Checks every argument before calling into
// WASM; owns its C++ object, and the C++ trace its forward passes write into, until dispose().
import { checkFloats, checkInteger, checkKeyMask, checkObject } from '../check.js';
import { heapBuffer, NativeHandle, orThrow } from './wasm-glue.js';
import { AttentionTrace } from './trace.js';

export class Attention {
  #module;
  #native; // NativeHandle of the embind MultiHeadAttention
  #trace; // NativeHandle of the embind AttentionTrace reused by every forward pass
  #passes = 0; // counts forwardView() calls and dispose(): a view trace is current while this is unchanged

  /** @internal Use engine.createAttention(). */
  constructor(module, native, config, onDispose) {
    this.#module = module;
    this.#native = new NativeHandle(native, 'attention layer', () => onDispose(this));
    this.#trace = new NativeHandle(new module.AttentionTrace(), 'trace', () => {});
    this.dModel = config.dModel;
    this.numHeads = config.numHeads;
    this.numKeyValueHeads = config.numKeyValueHeads;
    this.headDim = config.headDim;
    this.dHead = config.headDim; // the name before headDim; the same number
    this.causal = config.causal;
  }

  /**
   * Runs the layer on x (nTokens × dModel, row-major) and returns every intermediate, copied out;
   * the WASM memory the pass used is freed before it returns.
   */
  forward(x, nTokens, options = {}) {
    const [input, mask, keys] = this.#inputs(x, nTokens, options);
    const data = orThrow(this.#module.forward(this.#native.get(), input, nTokens, mask, keys));
    return new AttentionTrace(data, this.dModel, this.numHeads, false);
  }

  /**
   * forward() without copying: the trace's arrays are views of WASM memory, valid until the next
   * call into this engine. The layer keeps that memory, reused by each call, until dispose().
   */
  forwardView(x, nTokens, options = {}) {
    const [input, mask, keys] = this.#inputs(x, nTokens, options);
    const pass = ++this.#passes;
    const views = orThrow(this.#module.forwardView(this.#native.get(), input, nTokens, mask, keys, this.#trace.get()));
    // Growth of WASM memory (by any call into the engine) replaces the buffer the views are on.
    const current = () => pass === this.#passes && views.weights.buffer === heapBuffer(this.#module);
    return new AttentionTrace(views, this.dModel, this.numHeads, true, current);
  }

  /** Runs the layer keeping no intermediates; returns the output (nTokens × dModel). */
  output(x, nTokens, options = {}) {
    const [input, mask, keys] = this.#inputs(x, nTokens, options);
    return orThrow(this.#module.forwardOutput(this.#native.get(), input, nTokens, mask, keys));
  }

  /** Frees the layer's WASM memory. Later calls throw; calling dispose() again does nothing. */
  dispose() {
    this.#passes++;
    this.#trace.dispose();
    this.#native.dispose();
  }

  get disposed() {
    return this.#native.disposed;
  }

  // Checks and snapshots the arguments (check.js): user code (a getter, a Proxy) can run only here,
  // before the native object is fetched, so a getter that disposes the layer is caught by get().
  #inputs(x, nTokens, options) {
    this.#native.get(); // a disposed layer says so before complaining about arguments
    checkInteger('nTokens', nTokens, 1, this.#module.maxTokens);
    const input = checkFloats('x', x, nTokens * this.dModel, `nTokens × dModel = ${nTokens} × ${this.dModel}`);
    checkObject('options', options);
    const { keyMask, keyValueInput, nKeys, queryPosition } = options;
    const keys = keyValueInput === undefined ? this.#selfKeys(nKeys, queryPosition) : {
      nKeys: checkInteger('options.nKeys', nKeys, 1, this.#module.maxTokens),
      queryPosition: checkInteger('options.queryPosition', queryPosition ?? 0, 0, this.#module.maxTokens),
    };
    if (keys) {
      keys.x = checkFloats('options.keyValueInput', keyValueInput, keys.nKeys * this.dModel,
        `nKeys × dModel = ${keys.nKeys} × ${this.dModel}`);
    }
    const mask = keyMask === undefined ? undefined : checkKeyMask(keyMask, keys?.nKeys ?? nTokens, keys ? 'nKeys' : 'nTokens');
    return [input, mask, keys];
  }

  // Self-attention: nKeys and queryPosition have nothing to say without keyValueInput.
  #selfKeys(nKeys, queryPosition) {
    for (const [name, value] of [['nKeys', nKeys], ['queryPosition', queryPosition]]) {
      if (value !== undefined) {
        throw new TypeError(`options.${name} needs options.keyValueInput: without it the keys are the queries, ` +
          'nTokens of them at positions from 0');
      }
    }
    return undefined;
  }
}
