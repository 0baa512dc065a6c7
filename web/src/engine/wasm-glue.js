// The one place that touches the raw Emscripten module: loading a build, and turning the
// bindings' returned Error values into thrown errors, and owning embind objects. Nothing here is
// public API.
import { checkAlive } from '../check.js';
import { inlined } from './inlined.js';

// Each build's glue, by file name.
const GLUE = {
  'multihead-scalar': () => import('../../../dist/multihead-scalar.mjs'),
  'multihead-simd': () => import('../../../dist/multihead-simd.mjs'),
  'multihead-simd-threads': () => import('../../../dist/multihead-simd-threads.mjs'),
  'multihead-relaxed': () => import('../../../dist/multihead-relaxed.mjs'),
  'multihead-relaxed-threads': () => import('../../../dist/multihead-relaxed-threads.mjs'),
};

/**
 * Loads and instantiates one WASM build: 'scalar', 'simd' or 'relaxed-simd', the two SIMD ones
 * with `threads` threads (a pool of threads − 1 Web Workers on shared memory, which only their
 * threaded builds have). The imports are literal so bundlers can see them.
 */
export async function instantiate(build, threads = 1) {
  const name = `multihead-${build === 'relaxed-simd' ? 'relaxed' : build}${threads > 1 ? '-threads' : ''}`;
  let glue;
  try {
    glue = await GLUE[name]();
  } catch (cause) {
    throw new Error(`multihead could not load its WASM build dist/${name}.mjs (${cause.message}). ` +
      'In a clone of the repository, run `npm run build` first.', { cause });
  }
  if (threads > 1) {
    const files = isNode() ? null : await threadFiles(build);
    const settings = { threadPool: threads - 1, ...(files && { locateFile: files.locate }) };
    let module;
    try {
      const ready = glue.default(settings); // creates the pool's workers before it returns
      ready.catch(() => {}); // after a failed worker nothing waits for it
      module = files ? await Promise.race([ready, poolFailure(settings.PThread.unusedWorkers)]) : await ready;
    } finally {
      files?.release(); // every worker of the pool has started by now, or failed
    }
    // Idle workers must not keep Node running: the engine's threads sleep between passes.
    for (const worker of module.PThread.unusedWorkers) worker.unref?.();
    return module;
  }
  // An inlined binary needs no fetch; locateFile keeps the glue from resolving a URL it cannot have.
  const wasmBinary = inlined.wasm[build];
  return glue.default(wasmBinary ? { wasmBinary, locateFile: (path) => path } : undefined);
}

/**
 * Where the threaded build finds its files in a browser (`locate`, its locateFile): its .wasm,
 * and its workers' script as a blob: URL of this page's origin. The URLs are literal, so bundlers
 * copy both files; but a bundler may inline the small script as a data: URL, whose workers would
 * have no origin, and could neither import the engine's glue nor share its memory. Fetching the
 * script's text works either way. (Node reads both beside the glue: cpp/bindings/node-esm-pre.js.)
 */
async function threadFiles(build) {
  const { wasm, script } = build === 'relaxed-simd' ? {
    wasm: new URL('../../../dist/multihead-relaxed-threads.wasm', import.meta.url).href,
    script: new URL('../../../dist/multihead-relaxed-threads.worker.js', import.meta.url).href,
  } : {
    wasm: new URL('../../../dist/multihead-simd-threads.wasm', import.meta.url).href,
    script: new URL('../../../dist/multihead-simd-threads.worker.js', import.meta.url).href,
  };
  const response = await fetch(script);
  if (!response.ok) throw new Error(`multihead could not load ${script}: HTTP ${response.status}`);
  const worker = URL.createObjectURL(new Blob([await response.text()], { type: 'text/javascript' }));
  return { locate: (path) => (path.endsWith('.wasm') ? wasm : worker), release: () => URL.revokeObjectURL(worker) };
}

/**
 * Rejects when a browser cannot start one of the pool's workers, as under a Content-Security-Policy
 * whose worker-src leaves out blob:. Emscripten 3.1.6 would wait for that worker forever; the
 * workers are stopped instead, and loadEngine goes on with one thread.
 */
function poolFailure(workers) {
  return new Promise((_, reject) => {
    for (const worker of workers) {
      worker.addEventListener('error', (event) => {
        for (const w of workers) w.terminate();
        reject(new Error(`multihead could not start the threaded build's workers${event.message ? ` (${event.message})` : ''}; ` +
          'a Content-Security-Policy whose worker-src leaves out blob: forbids them, for one'));
      }, { once: true });
    }
  });
}

const isNode = () => typeof process === 'object' && typeof process.versions?.node === 'string';

/**
 * The cores this JavaScript environment offers the engine's threads, or 0 where it cannot start
 * any: shared memory is unavailable, or this is the single-file build.
 */
export function threadCapacity() {
  // A browser shares memory with workers only in a cross-origin isolated page (COOP and COEP
  // headers); Node always can. The single-file build carries no threaded build and no worker script.
  const node = isNode();
  if (inlined.wasm.simd || typeof SharedArrayBuffer !== 'function' || !(node || globalThis.crossOriginIsolated === true)) return 0;
  const cores = globalThis.navigator?.hardwareConcurrency ?? (node ? process.getBuiltinModule('os').availableParallelism() : 1);
  return Number.isInteger(cores) && cores > 1 ? cores : 1;
}

/** The WASM heap's bytes as they are now: growing the heap replaces its buffer. */
export function heapBuffer(module) {
  // A threaded build's exported views are refreshed only by the thread that grew the heap.
  return module.wasmMemory?.buffer ?? module.HEAPU8.buffer;
}

/** Stops a threaded build's workers; a single-threaded module has none. */
export function stopThreads(module) {
  if (!module.PThread) return;
  module.useThreads(1);
  module.PThread.terminateAllThreads();
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
