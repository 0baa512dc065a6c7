// loadEngine(): picks and instantiates a WASM build, and makes attention layers and models on it.
import { Attention } from './attention.js';
import { checkAlive, checkBoolean, checkFloats, checkInteger, checkObject, describe } from '../check.js';
import { Model } from '../model/model.js';
import { readModelFiles } from '../loading/sources.js';
import { instantiate, orThrow, stopThreads, threadCapacity } from './wasm-glue.js';
import { inlined } from './inlined.js';
import { relaxedSimdSupported, simdSupported } from './simd.js';

const WEIGHT_NAMES = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];

// More threads than this are refused: each is a Web Worker with its own copy of the glue.
const MAX_THREADS = 64;

/**
 * Loads the engine. With `simd` omitted it uses the SIMD build where WebAssembly SIMD is
 * supported and the scalar build elsewhere; `simd: false` forces the scalar build. Within SIMD,
 * the relaxed-SIMD build (fused multiply-add) is used where the JavaScript engine runs relaxed
 * SIMD, unless `relaxedSimd: false` asks for the plain one; engine.build says which loaded.
 * `threads` (default: one per core) is how many threads a pass may use, used as asked wherever
 * threads exist; engine.threads says how many it got: one in a page that is not cross-origin
 * isolated, in the single-file build, with the scalar build, and where the threaded build cannot
 * load (engine.threadsError then says why).
 */
export async function loadEngine(options = {}) {
  checkObject('loadEngine options', options);
  const { simd: simdOption, relaxedSimd: relaxedOption, threads: threadsOption, ...rest } = options;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new TypeError(`loadEngine has no option ${unknown.join(', ')}; its options are simd, relaxedSimd and threads`);
  const build = chooseBuild(simdOption, relaxedOption);
  const wanted = threadsOption === undefined ? undefined : checkInteger('threads', threadsOption, 1, MAX_THREADS);
  const cores = threadCapacity();
  // A count asked for is used as asked where threads exist at all; by default, one per core.
  const threads = build === 'scalar' || cores === 0 ? 1 : Math.min(wanted ?? cores, MAX_THREADS);
  let threadsError = null;
  if (threads > 1) {
    // Where the threaded build's files cannot be loaded (a bundler that does not copy them), the
    // engine still works on one thread, and keeps the reason.
    let module = null;
    try {
      module = await instantiate(build, threads);
    } catch (error) {
      threadsError = error instanceof Error ? error : new Error(String(error));
    }
    if (module) return new Engine(module, build, orThrow(module.useThreads(threads)));
  }
  return new Engine(await instantiate(build, 1), build, 1, threadsError);
}

/** The build loadEngine's `simd` and `relaxedSimd` options ask for: 'scalar', 'simd' or 'relaxed-simd'. */
function chooseBuild(simdOption, relaxedOption) {
  const supported = simdSupported();
  const simd = simdOption === undefined ? supported : checkBoolean('simd', simdOption);
  if (simd && !supported) throw new Error('This JavaScript engine does not support WebAssembly SIMD; use loadEngine({ simd: false })');
  // The single-file build carries the two plain builds only.
  const relaxedAvailable = relaxedSimdSupported() && !inlined.wasm.simd;
  if (relaxedOption === undefined) return !simd ? 'scalar' : relaxedAvailable ? 'relaxed-simd' : 'simd';
  const relaxed = checkBoolean('relaxedSimd', relaxedOption);
  if (!relaxed) return simd ? 'simd' : 'scalar';
  if (!simd) {
    throw new Error(simdOption === false ? 'loadEngine({ simd: false, relaxedSimd: true }) asks for two builds: relaxed SIMD is a SIMD build'
      : 'This JavaScript engine does not support WebAssembly SIMD, which relaxed SIMD builds on; use loadEngine({ relaxedSimd: false })');
  }
  if (inlined.wasm.simd) throw new Error('The single-file build carries no relaxed-SIMD build; use loadEngine({ relaxedSimd: false }) or the npm package');
  if (!relaxedAvailable) {
    throw new Error('This JavaScript engine does not support WebAssembly relaxed SIMD (Node 20 needs --experimental-wasm-relaxed-simd); use loadEngine({ relaxedSimd: false })');
  }
  return 'relaxed-simd';
}

export class Engine {
  #module;
  #owned = new Set(); // live layers and models, disposed with the engine
  #disposed = false;

  /** @internal Use loadEngine(). */
  constructor(module, build, threads = 1, threadsError = null) {
    this.#module = module;
    this.simd = build !== 'scalar';
    this.build = build;
    this.threads = threads;
    this.threadsError = threadsError;
    this.limits = Object.freeze({ maxTokens: module.maxTokens, maxDModel: module.maxDModel });
    this.architectures = Object.freeze(Array.from(module.architectures(), ({ modelType, name, encoderDecoder }) => Object.freeze({ modelType, name, encoderDecoder })));
  }

  /** A multi-head attention layer with the given weights, or seeded random weights. */
  createAttention(config) {
    checkAlive(this.#disposed, 'engine');
    checkObject('createAttention options', config);
    const { dModel, numHeads, numKeyValueHeads, headDim, causal = false, weights, seed } = config;
    checkInteger('dModel', dModel, 1, this.limits.maxDModel);
    checkInteger('numHeads', numHeads, 1, headDim === undefined ? dModel : this.limits.maxDModel); // heads of dModel / numHeads need numHeads ≤ dModel
    if (numKeyValueHeads !== undefined) {
      checkInteger('numKeyValueHeads', numKeyValueHeads, 1, numHeads);
      if (numHeads % numKeyValueHeads !== 0) {
        throw new RangeError(`numHeads (${numHeads}) must be a multiple of numKeyValueHeads (${numKeyValueHeads}): each key/value head serves numHeads / numKeyValueHeads query heads`);
      }
    }
    if (headDim === undefined && dModel % numHeads !== 0) {
      throw new RangeError(`dModel (${dModel}) must be divisible by numHeads (${numHeads})`);
    }
    if (headDim !== undefined) {
      checkInteger('headDim', headDim, 1, this.limits.maxDModel);
      if (numHeads * headDim > this.limits.maxDModel) {
        throw new RangeError(`numHeads × headDim is ${numHeads} × ${headDim} = ${numHeads * headDim}, above the limit of ${this.limits.maxDModel}`);
      }
    }
    checkBoolean('causal', causal);
    if ((weights === undefined) === (seed === undefined)) {
      throw new TypeError('createAttention needs exactly one of `weights` or `seed`, got ' +
        (weights === undefined ? 'neither' : 'both'));
    }
    const shape = { dModel, numHeads, numKeyValueHeads: numKeyValueHeads ?? numHeads, headDim: headDim ?? dModel / numHeads };
    const copies = weights === undefined ? null : checkWeights(weights, shape);
    if (copies === null) checkInteger('seed', seed, 0, 2 ** 32 - 1);
    checkAlive(this.#disposed, 'engine'); // a getter among the weights may have disposed it
    const sizes = [dModel, numHeads, shape.numKeyValueHeads, shape.headDim, causal];
    const native = copies === null
      ? this.#module.createSeededAttention(...sizes, seed)
      : this.#module.createAttention(...sizes, copies);
    const layer = new Attention(this.#module, orThrow(native), { ...shape, causal }, (l) => this.#owned.delete(l));
    this.#owned.add(layer);
    return layer;
  }

  /**
   * Loads a model: the default model shipped in the package when `source` is omitted (or
   * { builtin: 'default' }), the causal one shipped beside it ({ builtin: 'causal' }), a Hugging
   * Face Hub id ('bert-base-uncased', 'owner/name'), a folder
   * URL or (in Node) path holding config.json, tokenizer.json and model.safetensors, or those three
   * given as { config, tokenizer, weights } (objects, text, bytes, Blobs or URLs).
   * Options: { hubUrl, revision, onProgress({ file, loaded, total }), signal }.
   */
  async loadModel(source, options = {}) {
    checkAlive(this.#disposed, 'engine');
    const { signal, onProgress, ...where } = checkLoadOptions(options);
    const progress = onProgress && ((file, loaded, total) => onProgress({ file, loaded, total }));
    const files = await readModelFiles(source, { ...where, signal, progress });
    checkAlive(this.#disposed, 'engine');
    const model = await Model.create(this.#module, files, { signal, progress }, (m) => this.#owned.delete(m));
    if (this.#disposed) model.dispose(); // the engine was disposed while the model loaded
    checkAlive(this.#disposed, 'engine');
    this.#owned.add(model);
    return model;
  }

  /** This engine's WASM memory: { usedBytes } allocated now, and the { heapBytes } reserved. */
  memory() {
    checkAlive(this.#disposed, 'engine');
    return this.#module.memory();
  }

  /** Disposes every layer and model this engine made; the engine can no longer be used. */
  dispose() {
    for (const owned of this.#owned) owned.dispose();
    if (!this.#disposed) stopThreads(this.#module);
    this.#disposed = true;
  }
}

/** loadModel's options, each read once, checked; unknown names are refused (a typo would be silent). */
function checkLoadOptions(options) {
  checkObject('loadModel options', options);
  const { hubUrl, revision, onProgress, signal, ...rest } = options;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new TypeError(`loadModel has no option ${unknown.join(', ')}; its options are hubUrl, revision, onProgress and signal`);
  if (hubUrl !== undefined && typeof hubUrl !== 'string' && !(hubUrl instanceof URL)) {
    throw new TypeError(`hubUrl must be a URL string, got ${describe(hubUrl)}`);
  }
  if (revision !== undefined && typeof revision !== 'string') throw new TypeError(`revision must be a string, got ${describe(revision)}`);
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError(`onProgress must be a function, got ${describe(onProgress)}`);
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError(`signal must be an AbortSignal, got ${describe(signal)}`);
  signal?.throwIfAborted();
  return { hubUrl: hubUrl === undefined ? undefined : String(hubUrl), revision, onProgress, signal };
}

/** Checks the weights and returns snapshots of them (check.js), each read once. */
function checkWeights(weights, { dModel: d, numHeads: h, numKeyValueHeads: kv, headDim: dh }) {
  checkObject('weights', weights);
  // Each weight's size, and its shape in words: standard multi-head attention keeps today's names.
  const standard = kv === h && dh * h === d;
  const q = standard ? 'dModel' : 'numHeads·headDim', k = standard ? 'dModel' : 'numKeyValueHeads·headDim';
  const shapes = {
    wq: [d, h * dh, `dModel × ${q}`], wk: [d, kv * dh, `dModel × ${k}`], wv: [d, kv * dh, `dModel × ${k}`], wo: [h * dh, d, `${q} × dModel`],
    bq: [h * dh, 1, q], bk: [kv * dh, 1, k], bv: [kv * dh, 1, k], bo: [d, 1, 'dModel'],
  };
  const copies = {};
  for (const name of WEIGHT_NAMES) {
    const value = weights[name];
    if (value === undefined) throw new TypeError(`weights.${name} is missing (weights needs ${WEIGHT_NAMES.join(', ')})`);
    const [rows, cols, words] = shapes[name];
    copies[name] = checkFloats(`weights.${name}`, value, rows * cols, cols === 1 ? words : `${words} = ${rows} × ${cols}`);
  }
  const extra = Object.keys(weights).filter((k) => !WEIGHT_NAMES.includes(k));
  if (extra.length) throw new TypeError(`weights has unknown ${describe(extra.join(', '))}; expected ${WEIGHT_NAMES.join(', ')}`);
  return copies;
}
