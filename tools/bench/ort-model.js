// onnxruntime-web running a whole model (tools/export_onnx.py's graph: token ids in, every
// layer's attention probabilities and the final hidden states out), each instance in its own
// worker thread, for the whole-model part of `npm run bench`.
//
// Why a worker per instance: ORT-web's thread count is env.wasm.numThreads, read once when its
// WASM initialises, and its sessions share that one global thread pool (a session's
// intraOpNumThreads is ignored: measured, 2 threads ran as fast with intraOpNumThreads 1 as with
// 2). A worker has its own module graph, so its own ORT with its own numThreads; one bench run
// can then hold a 1-thread and an N-thread ORT side by side. Above one thread ORT starts its
// Emscripten pthreads as further workers, which Node 20 allows without cross-origin isolation.
//
// Timing happens inside the worker, around session.run alone (feeds to output arrays in JS),
// so messages between threads are not counted; the main thread only waits meanwhile.
// Not a general wrapper: no batching, masks or browser loading.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

/**
 * @typedef {{ ms: number, cpuMs: number, attention?: Float32Array[], hidden?: Float32Array }} OrtRun
 *   attention[l] (H, n, n) and hidden (n, d), only when asked for; cpuMs: the process's CPU time
 *   during the run (user + system), so cpuMs / ms shows how many cores were busy.
 * @typedef {{ name: string, threads: number, loadMs: number,
 *   run(ids: Int32Array, keep?: boolean): Promise<OrtRun>, dispose(): Promise<void> }} OrtModel
 */

/**
 * Starts a worker, loads ORT there with `threads` threads and creates a session from `onnx`
 * (the .onnx file's bytes, copied to the worker before the load is timed).
 * @returns {Promise<OrtModel>}
 */
export async function createOrtModel({ onnx, threads }) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { ortModelWorker: true } });
  const replies = [];
  let failed = null;
  worker.on('message', (m) => replies.shift()?.resolve(m));
  const fail = (e) => { failed ??= e; replies.splice(0).forEach((r) => r.reject(failed)); };
  worker.on('error', fail);
  // A worker that dies without an error event (out of memory, terminated) must not leave a run waiting.
  worker.on('exit', (code) => fail(new Error(`onnxruntime-web worker exited with code ${code}`)));
  const ask = (message, transfer) => new Promise((resolve, reject) => {
    if (failed) { reject(failed); return; }
    replies.push({ resolve, reject });
    worker.postMessage(message, transfer);
  });
  const check = (reply) => { if (reply.error) throw new Error(`onnxruntime-web worker: ${reply.error}`); return reply; };
  const loaded = check(await ask({ type: 'load', onnx, threads }));
  return {
    name: `onnxruntime-web ${loaded.version}`,
    threads: loaded.threads,
    loadMs: loaded.loadMs,
    async run(ids, keep = false) {
      return check(await ask({ type: 'run', ids, keep }));
    },
    async dispose() {
      await ask({ type: 'dispose' });
      await worker.terminate();
    },
  };
}

// ---- the worker's side ----

async function serve() {
  let ort;
  let session;
  const handlers = {
    async load({ onnx, threads }) {
      ort = await import('onnxruntime-web'); // this worker's own instance
      const wasm = fileURLToPath(new URL('ort-wasm-simd-threaded.wasm', import.meta.resolve('onnxruntime-web')));
      ort.env.wasm.wasmBinary = readFileSync(wasm); // bytes: Node's fetch cannot read file:// URLs
      ort.env.wasm.numThreads = threads;
      ort.env.wasm.proxy = false;
      ort.env.wasm.simd = true;
      const start = performance.now();
      session = await ort.InferenceSession.create(onnx, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      const loadMs = performance.now() - start;
      // ORT falls back to one thread, with a warning, where the environment lacks threads.
      return { reply: { loadMs, threads: ort.env.wasm.numThreads, version: ort.env.versions.web } };
    },
    async run({ ids, keep }) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      const feeds = { ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [ids.length]) };
      const out = await session.run(feeds);
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu);
      const reply = { ms, cpuMs: (used.user + used.system) / 1000 };
      if (!keep) return { reply };
      const attention = session.outputNames.filter((n) => n.startsWith('attention.'))
        .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1])).map((n) => out[n].data);
      Object.assign(reply, { attention, hidden: out.hidden.data });
      return { reply, transfer: [...new Set([...attention, reply.hidden].map((a) => a.buffer))] };
    },
    async dispose() {
      await session?.release();
      return { reply: {} };
    },
  };
  parentPort.on('message', async (message) => {
    try {
      const { reply, transfer } = await handlers[message.type](message);
      parentPort.postMessage(reply, transfer);
    } catch (e) {
      parentPort.postMessage({ error: e?.stack ?? String(e) });
    }
  });
}

if (!isMainThread && workerData?.ortModelWorker) await serve();
