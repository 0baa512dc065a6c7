// The two peer engines `npm run bench` compares ours against: onnxruntime-web and
// @tensorflow/tfjs-backend-wasm, each computing the same multi-head self-attention layer (same
// weights, same convention as our engine) and returning the output and every head's weights.
//
// Both run in plain Node ESM, offline, on their SIMD WebAssembly builds with exactly one thread:
// the bench compares single-threaded fp32 kernels, so threads would measure something else.
// Each library is handed its .wasm from node_modules by path or bytes, never by URL, because
// Node 20's global fetch cannot read file:// URLs.
//
// Not a general wrapper: no masks, no batching, no browser loading, no timing (the bench does it).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { attentionGraph } from './onnx-graph.js';

// A file beside the package's Node entry point; for both packages that is their dist/ folder,
// where the .wasm files live. (Neither exports its package.json, so it can't anchor the path.)
const distFile = (pkg, file) => fileURLToPath(new URL(file, import.meta.resolve(pkg)));

/**
 * @typedef {{ wq: Float32Array, wk: Float32Array, wv: Float32Array, wo: Float32Array,
 *   bq: Float32Array, bk: Float32Array, bv: Float32Array, bo: Float32Array }} Weights
 *   wq…wo are (dModel × dModel) row-major, input dim first; bq…bo have dModel entries.
 * @typedef {{ dModel: number, numHeads: number, weights: Weights }} PeerConfig
 * @typedef {{ output: Float32Array, probs: Float32Array }} PeerResult
 *   output (n, dModel) row-major; probs (numHeads, n, n): head, query, key.
 * @typedef {{ name: string, build: string, run(x: Float32Array, n: number): Promise<PeerResult>,
 *   dispose(): void }} Peer
 */

// ---- onnxruntime-web ----

let ort; // the module, configured once: ORT initialises its wasm only on the first session (seq2seq.js shares it).

export async function loadOrt() {
  if (ort) return ort;
  ort = await import('onnxruntime-web'); // Node resolves this to dist/ort.node.min.mjs
  // ORT ships only SIMD builds; this is the plain CPU one (no WebGPU/JSEP). Its name says
  // "threaded" but with numThreads = 1 it starts no workers and creates no thread pool.
  const wasm = distFile('onnxruntime-web', 'ort-wasm-simd-threaded.wasm');
  ort.env.wasm.wasmBinary = readFileSync(wasm); // bytes, so ORT never fetches the .wasm
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false; // run in this thread, not in a worker
  ort.env.wasm.simd = true; // fail loudly rather than run without SIMD
  return ort;
}

/** onnxruntime-web, WASM execution provider, SIMD, one thread. @returns {Promise<Peer>} */
export async function createOrtAttention({ dModel, numHeads, weights }) {
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(attentionGraph({ dModel, numHeads, weights }), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  return {
    name: 'onnxruntime-web',
    build: `onnxruntime-web ${ort.env.versions.web}, ort-wasm-simd-threaded.wasm, 1 thread`,
    async run(x, n) {
      const feeds = { X: new ort.Tensor('float32', x, [n, dModel]) }; // (n, dModel)
      // New arrays every run: ORT-web leaves pre-allocated CPU output tensors unfilled (tried).
      const result = await session.run(feeds);
      return { output: result.output.data, probs: result.probs.data };
    },
    dispose() {
      session.release();
    },
  };
}

// ---- @tensorflow/tfjs-backend-wasm ----

let tfjs; // { tf, build }, set up once: the backend can be initialised only once per process.

async function loadTfjs() {
  if (tfjs) return tfjs;
  // Both are CommonJS in Node; importing the backend registers 'wasm' with this same tfjs-core.
  const tf = await import('@tensorflow/tfjs-core');
  const tfWasm = await import('@tensorflow/tfjs-backend-wasm');
  // Every binary name maps to the SIMD build, so tfjs cannot fall back to its scalar build
  // silently: without SIMD support, loading fails. In Node tfjs never picks the threaded build
  // (WASM_HAS_MULTITHREAD_SUPPORT is false there); the flag is set anyway to say so. A plain
  // path is read by the Emscripten glue with fs, not fetch.
  const build = 'tfjs-backend-wasm-simd.wasm';
  const simd = distFile('@tensorflow/tfjs-backend-wasm', build);
  tfWasm.setWasmPaths({
    'tfjs-backend-wasm.wasm': simd,
    'tfjs-backend-wasm-simd.wasm': simd,
    'tfjs-backend-wasm-threaded-simd.wasm': simd,
  });
  tfWasm.setThreadsCount(1);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend failed to initialise');
  const threads = tfWasm.getThreadsCount();
  tfjs = { tf, build: `tfjs-backend-wasm ${tfWasm.version_wasm}, ${build}, ${threads} thread` };
  return tfjs;
}

/** @tensorflow/tfjs-backend-wasm (XNNPACK), SIMD build, one thread. @returns {Promise<Peer>} */
export async function createTfjsAttention({ dModel: d, numHeads: h, weights }) {
  const { tf, build } = await loadTfjs();
  const dh = d / h;
  const w = {}; // (d, d) matrices and (d) biases as tensors, owned until dispose()
  for (const k of ['wq', 'wk', 'wv', 'wo']) w[k] = tf.tensor2d(weights[k], [d, d]);
  for (const k of ['bq', 'bk', 'bv', 'bo']) w[k] = tf.tensor1d(weights[k]);
  const scale = tf.scalar(1 / Math.sqrt(dh));

  function forward(x, n) {
    const X = tf.tensor2d(x, [n, d]); // (n, d)
    // (n, d) → (h, n, dh): head i gets columns [i·dh, (i+1)·dh).
    const heads = (W, b) => tf.transpose(tf.reshape(tf.add(tf.matMul(X, W), b), [n, h, dh]), [1, 0, 2]);
    const q = heads(w.wq, w.bq), k = heads(w.wk, w.bk), v = heads(w.wv, w.bv); // (h, n, dh)
    const scores = tf.mul(tf.matMul(q, k, false, true), scale); // (h, n, n)
    const probs = tf.softmax(scores); // (h, n, n), over keys (last axis)
    const concat = tf.reshape(tf.transpose(tf.matMul(probs, v), [1, 0, 2]), [n, d]); // (n, d)
    const output = tf.add(tf.matMul(concat, w.wo), w.bo); // (n, d)
    return { output, probs };
  }

  return {
    name: 'tfjs-backend-wasm',
    build,
    async run(x, n) {
      const t = tf.tidy(() => forward(x, n)); // tidy frees every intermediate but the two returned
      try {
        const [output, probs] = await Promise.all([t.output.data(), t.probs.data()]);
        return { output, probs };
      } finally {
        t.output.dispose();
        t.probs.dispose();
      }
    },
    dispose() {
      for (const t of Object.values(w)) t.dispose();
      scale.dispose();
    },
  };
}
