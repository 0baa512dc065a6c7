// Loads one model folder the way a user does (engine.loadModel(path): the weights streamed from
// the file into WASM memory) and reports what it cost: the time to a ready model, the WASM heap
// after loading, and the process's peak resident memory above what it used before, each as a
// ratio to the model's weight bytes; then the time of a run at each length given, and what one
// result of that length keeps.
//
//   node --expose-gc tools/bench/load.js build/checkpoints/bert-base [128 512]
//
// Writes nothing. A real-size folder comes from `python3 tools/make_checkpoints.py --size bert-base`.
// Resident memory is the honest measure of "JS plus WASM": it counts the heap's touched pages, the
// chunk buffers and V8's own, sampled every few milliseconds (a peak between samples can be missed).
import { readFileSync } from 'node:fs';
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
console.log(`${model.architecture} on ${engine.threads} thread${engine.threads === 1 ? '' : 's'}: ${model.numLayers} layers × ${model.numHeads} heads, d ${model.dModel}, vocabulary ${model.vocabSize}`);
console.log(`loaded in ${seconds.toFixed(2)} s; WASM heap in use ${mib(usedBytes)}, heap size ${mib(heapBytes)} ` +
  `(${(heapBytes / weights).toFixed(2)}× the bytes in use)`);
console.log(`peak resident memory while loading: +${mib(peak - before)} (${((peak - before) / weights).toFixed(2)}× the bytes in use)`);

// Words the tokenizer keeps whole (vocabulary entries of plain letters; GPT-2's start with Ġ, its
// space), so a text of k of them is k tokens plus the model's special ones.
const vocab = Object.keys(JSON.parse(readFileSync(resolve(folder, 'tokenizer.json'), 'utf8')).model.vocab);
const words = vocab.filter((t) => /^Ġ?[a-z]{3,}$/.test(t)).map((t) => t.replace(/^Ġ/, '')).slice(0, 200);
const specials = model.run(words[0]).ids.length - 1;
for (const length of lengths.map(Number)) {
  // Text of at least `length` tokens, cut there as the page cuts a long text (run's maxTokens).
  const text = Array.from({ length: length - specials }, (_, i) => words[i % words.length]).join(' ');
  const options = { maxTokens: Math.min(length, model.maxTokens) };
  // What one result keeps (run's maxAttentionBytes): the kept layers' weights, every layer's input
  // and the hidden states, counted, and the ArrayBuffer memory it holds, measured (with --expose-gc)
  // before any other run of this length leaves garbage to collect.
  globalThis.gc?.();
  const buffers = process.memoryUsage().arrayBuffers;
  let result = model.run(text, options); // the first run of a size also touches fresh memory
  const held = process.memoryUsage().arrayBuffers - buffers;
  const n = result.ids.length, floats = result.keptLayers * model.numHeads * n * n + (model.numLayers + 1) * n * model.dModel;
  console.log(`a result at ${n} tokens keeps ${result.keptLayers} of ${model.numLayers} layers' weights: ${mib(4 * floats)} with every ` +
    `layer's input and the hidden states; ArrayBuffers +${mib(held)}`);
  result = null;
  const times = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    model.run(text, options);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`run at ${n} tokens: median ${times[1].toFixed(0)} ms of 3 (min ${times[0].toFixed(0)}, max ${times[2].toFixed(0)})`);
}
engine.dispose();
