// The one place that touches the raw Emscripten module: loading a build, and turning the
// bindings' returned Error values into thrown errors, and owning embind objects. Nothing here is
// public API.
import { checkAlive } from './check.js';
import { inlined } from './inlined.js';

/** Loads and instantiates one WASM build. Both imports are literal so bundlers can see them. */
export async function instantiate(simd) {
  const file = simd ? 'multihead-simd.mjs' : 'multihead-scalar.mjs';
  let glue;
  try {
    glue = simd ? await import('../../dist/multihead-simd.mjs') : await import('../../dist/multihead-scalar.mjs');
  } catch (cause) {
    throw new Error(`multihead could not load its WASM build dist/${file} (${cause.message}). ` +
      'In a clone of the repository, run `npm run build` first.', { cause });
  }
  // An inlined binary needs no fetch; locateFile keeps the glue from resolving a URL it cannot have.
  const wasmBinary = inlined.wasm[simd ? 'simd' : 'scalar'];
  return glue.default(wasmBinary ? { wasmBinary, locateFile: (path) => path } : undefined);
}

/**
 * The bindings never throw: a C++ error comes back as an Error value (see cpp/bindings).
 * Throws it here, in JavaScript, where unwinding is free.
 */
export function orThrow(result) {
  if (result instanceof Error) throw result;
  return result;
}

/**
 * Ownership of one embind object: C++ memory that JavaScript's garbage collector never frees.
 * get() returns the object, or throws once dispose() has deleted it.
 */
export class NativeHandle {
  #object;
  #what;
  #onDispose;

  constructor(object, what, onDispose) {
    this.#object = object;
    this.#what = what;
    this.#onDispose = onDispose;
  }

  get() {
    checkAlive(this.disposed, this.#what);
    return this.#object;
  }

  get disposed() {
    return this.#object === null;
  }

  /** Deletes the C++ object once; later calls do nothing. */
  dispose() {
    if (!this.#object) return;
    this.#object.delete();
    this.#object = null;
    this.#onDispose();
  }
}
