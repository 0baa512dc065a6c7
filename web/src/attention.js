// A multi-head attention layer living in WASM memory. Checks every argument before calling into
// WASM; owns its C++ object until dispose().
import { checkFloats, checkInteger, checkKeyMask, checkObject } from './check.js';
import { NativeHandle, orThrow } from './native.js';
import { AttentionTrace } from './trace.js';

export class Attention {
  #module;
  #native; // NativeHandle of the embind MultiHeadAttention

  /** @internal Use engine.createAttention(). */
  constructor(module, native, config, onDispose) {
    this.#module = module;
    this.#native = new NativeHandle(native, 'attention layer', () => onDispose(this));
    this.dModel = config.dModel;
    this.numHeads = config.numHeads;
    this.dHead = config.dModel / config.numHeads;
    this.causal = config.causal;
  }

  /** Runs the layer on x (nTokens × dModel, row-major) and returns every intermediate. */
  forward(x, nTokens, options = {}) {
    const [input, mask] = this.#inputs(x, nTokens, options);
    const data = orThrow(this.#module.forward(this.#native.get(), input, nTokens, mask));
    return new AttentionTrace(data, nTokens, this.dModel, this.numHeads);
  }

  /** Runs the layer keeping no intermediates; returns the output (nTokens × dModel). */
  output(x, nTokens, options = {}) {
    const [input, mask] = this.#inputs(x, nTokens, options);
    return orThrow(this.#module.forwardOutput(this.#native.get(), input, nTokens, mask));
  }

  /** Frees the layer's WASM memory. Later calls throw; calling dispose() again does nothing. */
  dispose() {
    this.#native.dispose();
  }

  get disposed() {
    return this.#native.disposed;
  }

  #inputs(x, nTokens, options) {
    this.#native.get(); // throws if disposed
    checkInteger('nTokens', nTokens, 1, this.#module.maxTokens);
    checkFloats('x', x, nTokens * this.dModel, `nTokens × dModel = ${nTokens} × ${this.dModel}`);
    checkObject('options', options);
    const mask = options.keyMask === undefined ? undefined : checkKeyMask(options.keyMask, nTokens);
    return [x, mask];
  }
}
