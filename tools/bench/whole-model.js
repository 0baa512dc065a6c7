// The whole-model part of `npm run bench`: text to every layer's attention on real-size models
// (random weights: BERT-base at 128 and 512 tokens, GPT-2 at 1024, and a SmolLM2-135M-shaped Llama
// with BF16 weights at 128 and 512, which ORT runs as F32), our engine's relaxed-SIMD and SIMD
// builds against onnxruntime-web running the same model exported from the PyTorch reference, each
// at one thread and at every core. Also the load time from bytes in memory to a ready model, and our WASM heap
// after loading. Engines take turns round by round, as in the single-layer part; times are
// medians and ratios are medians of the ratios within rounds.
//
// Checkpoints and ONNX files are made into build/checkpoints/ when missing (make_checkpoints.py,
// export_onnx.py; a few minutes and about 2 GB the first time), never committed.
// Not measured here: the page, browsers, F16 files, downloads (load.js loads from a folder).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { checkpoint, PYTHON } from './checkpoints.js';
import { createOrtModel } from './ort-model.js';
import { targetLine } from './targets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// rounds: timed rounds of all six contestants; a BERT-base run at 512 tokens takes seconds.
// vsOrt: the target for ours / ORT, both on one thread and both on every core (from each issue),
// for the SIMD build; relaxedVsOrt the relaxed-SIMD build's, where an issue set one. shortSpeedup:
// our speedup on every core where onnxruntime-web's reaches it in the same run (a short input,
// whose GEMMs are too small to split evenly: the threads issue's target).
export const MODELS = [
  { size: 'bert-base', runs: [{ tokens: 128, rounds: 7, relaxedVsOrt: 0.5, shortSpeedup: 1.6 }, { tokens: 512, rounds: 5, relaxedVsOrt: 0.5 }], vsOrt: 0.55 },
  { size: 'gpt2', runs: [{ tokens: 1024, rounds: 3 }], vsOrt: 0.55 },
  { size: 'smollm2-135m', runs: [{ tokens: 128, rounds: 7, relaxedVsOrt: 0.5 }, { tokens: 512, rounds: 5 }], vsOrt: 0.6 },
];
export const BUILDS = ['relaxed-simd', 'simd'];
const TARGETS = {
  speedup: 1.7, // our one thread / our every core
  loadSecondsPer100MB: 0.3,
  heap: 1.3, // WASM heap after loading / the model's F32 weight bytes
};

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const cpuMs = (used) => (used.user + used.system) / 1000;

/** build/checkpoints/<size>/ with model.onnx, made (or re-exported) when missing or stale. */
function withOnnx(size) {
  const folder = checkpoint(size);
  // does nothing when model.onnx is newer than the checkpoint
  execFileSync(PYTHON, [`${ROOT}tools/export_onnx.py`, folder], { stdio: ['ignore', 'ignore', 'inherit'] });
  return folder;
}

/**
 * The model's weights' bytes as float32: every F32 tensor of model.safetensors but GPT-2's
 * causal-mask buffers (attn.bias, attn.masked_bias), which are not weights, and every BF16 tensor
 * counted twice.
 */
function weightBytes(safetensors) {
  const view = new DataView(safetensors.buffer, safetensors.byteOffset);
  const length = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(safetensors.subarray(8, 8 + length)));
  return Object.entries(header)
    .filter(([name, t]) => name !== '__metadata__' && ['F32', 'BF16'].includes(t.dtype) && !/\.attn\.(masked_)?bias$/.test(name))
    .reduce((sum, [, t]) => sum + (t.data_offsets[1] - t.data_offsets[0]) * (t.dtype === 'BF16' ? 2 : 1), 0);
}

/** Our engine's `build` at `threads` threads with the model loaded from bytes; times loadModel alone. */
async function loadOurs(files, threads, build) {
  const engine = await loadEngine({ threads, relaxedSimd: build === 'relaxed-simd' });
  const start = performance.now();
  const model = await engine.loadModel(files);
  const loadMs = performance.now() - start;
  return {
    name: 'multihead',
    threads: engine.threads ?? 1, // what it got: loadEngine reports it once threads are supported
    loadMs,
    heapBytes: engine.memory().heapBytes,
    model,
    dispose: () => engine.dispose(),
  };
}

/**
 * Text of vocabulary words that the tokenizer turns into exactly `tokens` ids, special tokens
 * included; words are kept only if they stay one token after a space (not split into pieces).
 */
function textOf(model, vocab, tokens) {
  const count = (text) => model.tokenize(text).ids.length;
  const candidates = Object.keys(vocab).filter((t) => /^Ġ?[a-z]{3,}$/.test(t)).map((t) => t.replace(/^Ġ/, ''));
  const base = count('the');
  const words = candidates.slice(0, 400).filter((w) => count(`the ${w}`) === base + 1).slice(0, 200);
  const specials = base - 1;
  const text = Array.from({ length: tokens - specials }, (_, i) => words[i % words.length]).join(' ');
  if (count(text) !== tokens) throw new Error(`whole-model bench: the text has ${count(text)} tokens, not ${tokens}`);
  return text;
}

const maxDiff = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };

/** Text → every layer's attention with our model; `keep` returns it (and the hidden states). */
function runOurs(model, text, keep) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = model.run(text);
  const attention = [];
  for (let l = 0; l < result.layers; l++) {
    const heads = Array.from({ length: result.heads }, (_, h) => result.attention(l, h)); // (n, n) each
    if (keep) attention.push(heads);
  }
  const ms = performance.now() - start;
  return { ms, cpuMs: cpuMs(process.cpuUsage(cpu)), ids: result.ids, attention, hidden: keep ? result.hidden : null };
}

/** Max |ours − ORT| for every layer's attention and the hidden states. */
function agreement(ours, ort) {
  const layers = ours.attention.map((heads, l) => Math.max(...heads.map((p, h) => maxDiff(p, ort.attention[l].subarray(h * p.length, (h + 1) * p.length)))));
  return { layers, hidden: maxDiff(ours.hidden, ort.hidden) };
}

async function benchLength(contestants, text, { rounds, relaxedVsOrt, shortSpeedup }) {
  // One run each to compare, which also warms up: the first run of a size touches fresh memory.
  const agree = {};
  let ids;
  for (const [t, pair] of Object.entries(contestants)) {
    for (const build of BUILDS) {
      const ours = runOurs(pair.ours[build].model, text, true);
      ids = ours.ids;
      const ort = await pair.ort.run(ids, true);
      agree[`${build} ${t}`] = agreement(ours, ort);
    }
  }
  const all = Object.entries(contestants).flatMap(([t, pair]) => [
    ...BUILDS.map((build) => ({ key: `${build}${t}`, run: async () => runOurs(pair.ours[build].model, text, false) })),
    { key: `ort${t}`, run: () => pair.ort.run(ids) },
  ]);
  for (const c of all) await c.run(); // a second warm-up: ORT's thread pool is slow on its first runs
  const times = Object.fromEntries(all.map((c) => [c.key, []]));
  const cpu = Object.fromEntries(all.map((c) => [c.key, []]));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < all.length; k++) { // each round starts with a different contestant
      const c = all[(r + k) % all.length];
      const { ms, cpuMs: used } = await c.run();
      times[c.key].push(ms);
      cpu[c.key].push(used / ms);
    }
  }
  const perRound = (a, b) => median(times[a].map((t, r) => t / times[b][r]));
  const [one, many] = Object.keys(contestants);
  const out = {
    tokens: ids.length,
    rounds,
    relaxedVsOrt,
    shortSpeedup,
    medianMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])),
    cores: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)])), // CPU time / wall time
    ratioOne: Object.fromEntries(BUILDS.map((b) => [b, perRound(`${b}${one}`, `ort${one}`)])),
    relaxedOverPlain: perRound(`relaxed-simd${one}`, `simd${one}`),
    agreement: agree,
  };
  if (many) {
    out.ratioAll = Object.fromEntries(BUILDS.map((b) => [b, perRound(`${b}${many}`, `ort${many}`)]));
    out.speedup = Object.fromEntries(BUILDS.map((b) => [b, perRound(`${b}${one}`, `${b}${many}`)]));
    out.ortSpeedup = perRound(`ort${one}`, `ort${many}`);
  }
  return out;
}

/** Every model (or those of `sizes`) at every length; thread counts 1 and os.availableParallelism(). */
export async function benchWholeModel(sizes = MODELS.map((m) => m.size)) {
  const all = os.availableParallelism();
  const threadCounts = all > 1 ? [1, all] : [1];
  const loadAverage = os.loadavg()[0];
  const models = [];
  for (const { size, runs } of MODELS.filter((m) => sizes.includes(m.size))) {
    const folder = withOnnx(size);
    process.stderr.write(`bench: whole model ${size}…\n`);
    const read = (file) => new Uint8Array(readFileSync(`${folder}/${file}`));
    const files = { config: read('config.json'), tokenizer: read('tokenizer.json'), weights: read('model.safetensors') };
    const onnx = read('model.onnx');
    const bytes = weightBytes(files.weights);
    const contestants = {}; // threads asked for → { ours: { build → ours }, ort }
    for (const threads of threadCounts) {
      const ours = {};
      for (const build of BUILDS) ours[build] = await loadOurs(files, threads, build);
      const ort = await createOrtModel({ onnx, threads });
      contestants[threads] = { ours, ort };
    }
    const first = contestants[1].ours.simd.model;
    const vocab = JSON.parse(new TextDecoder().decode(files.tokenizer)).model.vocab;
    const lengths = [];
    for (const run of runs) {
      process.stderr.write(`bench: ${size} at ${run.tokens} tokens…\n`);
      lengths.push(await benchLength(contestants, textOf(first, vocab, run.tokens), run));
    }
    models.push({
      size,
      architecture: first.architecture,
      layers: first.numLayers,
      heads: first.numHeads,
      weightBytes: bytes,
      vsOrt: MODELS.find((x) => x.size === size).vsOrt,
      engines: Object.entries(contestants).map(([asked, { ours, ort }]) => ({
        asked: Number(asked),
        ours: Object.fromEntries(BUILDS.map((b) => [b, { threads: ours[b].threads, loadMs: ours[b].loadMs, heapBytes: ours[b].heapBytes }])),
        ort: { threads: ort.threads, loadMs: ort.loadMs, name: ort.name },
      })),
      lengths,
    });
    for (const { ours, ort } of Object.values(contestants)) {
      for (const build of BUILDS) ours[build].dispose();
      await ort.dispose();
    }
  }
  return { threadCounts, loadAverage, models, targets: wholeModelTargets(models) };
}

const per100MB = (ms, bytes) => ms / 1000 / (bytes / 1e8);

export function wholeModelTargets(models) {
  const list = [];
  const add = (what, value, digits, op, limit, { note, judged = true } = {}) => list.push({
    what, value: value.toFixed(digits), target: `${op} ${limit}`, note,
    met: !judged ? null : op === '≤' ? value <= limit : value >= limit,
  });
  for (const m of models) {
    for (const l of m.lengths) {
      const limits = { 'relaxed-simd': l.relaxedVsOrt, simd: m.vsOrt };
      for (const build of BUILDS.filter((b) => limits[b] !== undefined)) {
        const at = `${m.size} ${l.tokens} tokens, ${build}`;
        add(`${at}, 1 thread: multihead / onnxruntime-web time`, l.ratioOne[build], 2, '≤', limits[build]);
        if (l.ratioAll === undefined) continue;
        add(`${at}, all threads: multihead / onnxruntime-web time`, l.ratioAll[build], 2, '≤', limits[build]);
        add(`${at}: multihead speedup, all threads over 1`, l.speedup[build], 2, '≥', TARGETS.speedup);
        if (l.shortSpeedup === undefined) continue;
        // Judged only in a run where onnxruntime-web's threads pay as much: else the machine was busy.
        add(`${at}: multihead speedup, all threads over 1, short input`, l.speedup[build], 2, '≥', l.shortSpeedup,
          { note: `onnxruntime-web's ${l.ortSpeedup.toFixed(2)}`, judged: l.ortSpeedup >= l.shortSpeedup });
      }
    }
    for (const e of m.engines) {
      const ours = e.ours['relaxed-simd'];
      const threads = `${e.asked} thread${e.asked > 1 ? 's' : ''} asked, ${ours.threads} got`;
      add(`${m.size} multihead load (${threads}), s per 100 MB of F32 weights`,
        per100MB(ours.loadMs, m.weightBytes), 2, '≤', TARGETS.loadSecondsPer100MB);
      add(`${m.size} WASM heap after loading / F32 weight bytes (${threads})`,
        ours.heapBytes / m.weightBytes, 2, '≤', TARGETS.heap);
    }
  }
  return list;
}

/** The printed table, as lines. */
export function reportWholeModel({ models, threadCounts, loadAverage }) {
  const lines = [];
  const pad = (v, w) => String(v).padStart(w);
  const sec = (ms) => (ms / 1000).toFixed(2);
  lines.push(`Whole model, text → every layer's attention (tokenizer included for multihead; onnxruntime-web from the same ids),`);
  lines.push(`random weights, fp32; threads asked: ${threadCounts.join(' and ')} (os.availableParallelism() = ${os.availableParallelism()}).`);
  lines.push('"threads" is what each engine reports it got; "cores" is CPU time / wall time during its runs.');
  lines.push(`Load average (1 min) before: ${loadAverage.toFixed(2)}; other work on the machine takes cores from the threaded runs.`);
  lines.push('Ratios: medians over rounds of the ratio within a round; speedup = one-thread time / all-threads time.');
  lines.push('');
  lines.push(`${'model'.padEnd(22)}${'engine'.padEnd(24)}${pad('threads', 8)}${pad('median s', 10)}${pad('cores', 7)}${pad('ours/ORT', 10)}${pad('speedup', 9)}`);
  for (const m of models) {
    for (const l of m.lengths) {
      let first = true;
      for (const e of m.engines) {
        const many = e.asked > 1;
        const row = (name, key, threads, ratio, speedup) => {
          lines.push(`${(first ? `${m.size} ${l.tokens} tokens` : '').padEnd(22)}${name.padEnd(24)}${pad(threads, 8)}` +
            `${pad(sec(l.medianMs[key]), 10)}${pad(l.cores[key].toFixed(2), 7)}${pad(ratio, 10)}${pad(speedup, 9)}`);
          first = false;
        };
        for (const build of BUILDS) {
          row(`multihead ${build}`, `${build}${e.asked}`, e.ours[build].threads, (many ? l.ratioAll : l.ratioOne)[build].toFixed(2),
            many ? l.speedup[build].toFixed(2) : '');
        }
        row(e.ort.name, `ort${e.asked}`, e.ort.threads, '', many ? l.ortSpeedup.toFixed(2) : '');
      }
    }
  }
  lines.push('');
  lines.push('Relaxed SIMD over SIMD, 1 thread (time ratio, median over rounds): ' +
    models.flatMap((m) => m.lengths.map((l) => `${m.size} ${l.tokens} tokens ${l.relaxedOverPlain.toFixed(2)}`)).join('; '));
  lines.push('');
  lines.push('Agreement, max |multihead − onnxruntime-web| per layer (attention) and in the final hidden states:');
  for (const m of models) {
    for (const l of m.lengths) {
      for (const [key, a] of Object.entries(l.agreement)) {
        const [build, asked] = key.split(' ');
        lines.push(`  ${m.size} ${l.tokens} tokens, ${build}, ${asked} thread${asked > 1 ? 's' : ''}: attention ` +
          `${a.layers.map((d) => d.toExponential(1)).join(' ')}; hidden ${a.hidden.toExponential(1)}`);
      }
    }
  }
  lines.push('');
  lines.push('Load from bytes in memory to a ready model (multihead: loadModel; onnxruntime-web: InferenceSession.create):');
  for (const m of models) {
    const mb = m.weightBytes / 1e6;
    for (const e of m.engines) {
      const ours = e.ours['relaxed-simd'];
      lines.push(`  ${m.size} (${mb.toFixed(0)} MB F32), ${e.asked} thread${e.asked > 1 ? 's' : ''} asked: multihead ${sec(ours.loadMs)} s ` +
        `(${per100MB(ours.loadMs, m.weightBytes).toFixed(2)} s/100 MB), WASM heap ${(ours.heapBytes / 1e6).toFixed(0)} MB = ` +
        `${(ours.heapBytes / m.weightBytes).toFixed(2)}× the weights; onnxruntime-web ${sec(e.ort.loadMs)} s ` +
        `(${per100MB(e.ort.loadMs, m.weightBytes).toFixed(2)} s/100 MB)`);
    }
  }
  return lines;
}

export const reportTargets = (targets) => ['', 'Whole-model targets:', ...targets.map(targetLine)];

// `node tools/bench/whole-model.js [size …]`: this part alone, for the models named (default all).
if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv.slice(2);
  const unknown = sizes.filter((size) => !MODELS.some((m) => m.size === size));
  if (unknown.length) throw new Error(`whole-model: unknown model ${unknown.join(', ')}; use ${MODELS.map((m) => m.size).join(', ')}`);
  const results = await benchWholeModel(sizes.length ? sizes : undefined);
  const lines = reportWholeModel(results);
  lines.push(...reportTargets(results.targets));
  console.log(lines.join('\n'));
}
