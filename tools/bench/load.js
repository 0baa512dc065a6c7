// Loads one model folder the way a user does (engine.loadModel(path): the weights streamed from
// the file into WASM memory) and reports what it cost: the time to a ready model, the WASM heap
// after loading, and the process's peak resident memory above what it used before, each as a
// ratio to the model's float32 weight bytes; then the time of a run at each length given.
//
//   node tools/bench/load.js build/checkpoints/bert-base [128 512]
//
// Writes nothing. A real-size folder comes from `python3 tools/make_checkpoints.py --size bert-base`.
// Resident memory is the honest measure of "JS plus WASM": it counts the heap's touched pages, the
// chunk buffers and V8's own, sampled every few milliseconds (a peak between samples can be missed).
import { resolve } from 'node:path';
import { loadEngine } from '../../web/src/index.js';

const [folder, ...lengths] = process.argv.slice(2);
if (!folder) {
  console.error('usage: node tools/bench/load.js <model folder> [tokens …]');
  process.exit(2);
}
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

const engine = await loadEngine();
globalThis.gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
const start = performance.now();
const model = await engine.loadModel(resolve(folder));
const seconds = (performance.now() - start) / 1000;
peak = Math.max(peak, process.memoryUsage().rss);
clearInterval(sampler);

const { heapBytes, usedBytes } = engine.memory();
// The model's float32 weights, as the engine holds them: what the heap is compared with.
const weights = usedBytes;
console.log(`${model.architecture}: ${model.numLayers} layers × ${model.numHeads} heads, d ${model.dModel}, vocabulary ${model.vocabSize}`);
console.log(`loaded in ${seconds.toFixed(2)} s; WASM heap in use ${mib(usedBytes)}, heap size ${mib(heapBytes)} ` +
  `(${(heapBytes / weights).toFixed(2)}× the bytes in use)`);
console.log(`peak resident memory while loading: +${mib(peak - before)} (${((peak - before) / weights).toFixed(2)}× the bytes in use)`);

const words = 'the quick brown fox jumps over the lazy dog and then runs far away into the deep green forest'.split(' ');
const textOf = (count) => Array.from({ length: count }, (_, i) => words[i % words.length]).join(' ');
for (const length of lengths.map(Number)) {
  // As many words as make `length` tokens with this tokenizer (a word may be several pieces).
  let count = length;
  for (let tries = 0; tries < 6; tries++) {
    const n = model.run(textOf(count)).ids.length;
    if (n === length) break;
    count = Math.max(1, count + length - n);
  }
  const text = textOf(count);
  const times = [];
  let tokens = 0;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    tokens = model.run(text).ids.length;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`run at ${tokens} tokens: median ${times[1].toFixed(0)} ms of 3 (min ${times[0].toFixed(0)}, max ${times[2].toFixed(0)})`);
}
engine.dispose();
