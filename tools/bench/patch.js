// The patch part of `npm run bench`: model.patch()'s head sweep on a GPT-2-sized checkpoint
// (random weights, from make_checkpoints.py --size gpt2: 12 layers × 12 heads, d 768), at 20 tokens
// of a prompt and a corrupted twin of the same length, on the engine's default build and threads.
// A sweep is two recorded runs, then 144 patched runs, each starting at the layer it patches.
//
// What starting there saves is measured, not modelled: a patched run of layer 0 starts at the
// residual stream entering layer 0, the embeddings, so it is what every patched run would cost if
// each started at the embeddings. Each round times one sweep, with each of its patched runs on
// its own, then 144 patched runs of layer 0 on the same Patching; the sweep from the embeddings is
// the sweep with its patched runs' time swapped for those. To time single runs, the bench makes
// its engine as loadEngine() does but keeps the WASM module, and wraps that module's
// createPatching and patchingHead (why.js's bindings): a hook of its own instance, no API.
// Not measured here: over: 'positions' (numLayers × n runs of the same kind), the page's worker.
// `node --experimental-wasm-relaxed-simd tools/bench/patch.js` runs it alone.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Engine, loadEngine } from '../../web/src/index.js';
import { instantiate, orThrow } from '../../web/src/engine/wasm-glue.js';
import { checkpoint } from './checkpoints.js';
import { textOf } from './decode.js';
import { targetLine } from './targets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SIZE = 'gpt2', TOKENS = 20, ROUNDS = 3;
const TARGET_SECONDS = 5; // the "a few seconds on 2 threads" for the head sweep
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const sum = (values) => values.reduce((a, b) => a + b, 0);

/** The engine loadEngine() makes by default, and its WASM module. */
async function defaultEngine() {
  const probe = await loadEngine();
  const { build, threads } = probe;
  probe.dispose();
  const module = await instantiate(build, threads);
  const engine = new Engine(module, build, threads > 1 ? orThrow(module.useThreads(threads)) : 1);
  return { engine, module };
}

/**
 * Wraps the module's createPatching and patchingHead: keeps the last createPatching's arguments
 * (the native model, both prompts' ids, position, token, against) and the time of each
 * patchingHead call, { layer, ms }, until take().
 */
function timePatching(module) {
  const { createPatching, patchingHead } = module;
  let made = null, runs = [];
  module.createPatching = (...args) => {
    made = args;
    return createPatching(...args);
  };
  module.patchingHead = (native, layer, head) => {
    const start = performance.now();
    const difference = patchingHead(native, layer, head);
    runs.push({ layer, ms: performance.now() - start });
    return difference;
  };
  return {
    take() {
      const out = runs;
      runs = [];
      return out;
    },
    /** `count` patched runs of layer 0 on a Patching like the last one: the ms of each, and the values they give. */
    fromEmbeddings(count, heads) {
      const patching = orThrow(createPatching(...made));
      try {
        const ends = module.patchingEnds(patching);
        const ms = [], values = [];
        for (let i = 0; i < count; i++) {
          const start = performance.now();
          const difference = orThrow(patchingHead(patching, 0, i % heads));
          ms.push(performance.now() - start);
          values.push((difference - ends.corrupted) / (ends.clean - ends.corrupted));
        }
        return { ms, values };
      } finally {
        patching.delete();
      }
    },
  };
}

/** The clean ids with the middle one changed to another of the prompt's, as a name swapped for another. */
function corruptedTwin(ids) {
  const out = Int32Array.from(ids), at = ids.length >> 1;
  out[at] = ids.find((id) => id !== ids[at]);
  return out;
}

export async function benchPatch() {
  execFileSync(process.execPath, [`${ROOT}tools/build.js`, 'wasm'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const folder = checkpoint(SIZE);
  const { engine, module } = await defaultEngine();
  const timer = timePatching(module);
  try {
    const model = await engine.loadModel(folder);
    const clean = model.tokenize(textOf(model, TOKENS)).ids;
    const options = { clean, corrupted: corruptedTwin(clean), over: 'heads' };
    process.stderr.write(`bench: patch ${SIZE} at ${TOKENS} tokens, ${engine.threads} thread(s)…\n`);
    await model.patch(options); // a warm-up: the first sweep also touches fresh memory
    timer.take();
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const start = performance.now();
      const sweep = await model.patch(options);
      const sweepMs = performance.now() - start;
      const runs = timer.take();
      if (runs.length !== sweep.runs) throw new Error(`patch bench: timed ${runs.length} patched runs, the sweep made ${sweep.runs}`);
      const whole = timer.fromEmbeddings(sweep.runs, model.numHeads);
      // The runs timed must be the sweep's own: layer 0's values, bit for bit.
      const differs = whole.values.slice(0, model.numHeads).some((v, h) => v !== sweep.values[0][h]);
      if (differs) throw new Error('patch bench: a patched run of layer 0 differs from the sweep\'s');
      const patchedMs = sum(runs.map((run) => run.ms)), fromEmbeddingsMs = sum(whole.ms);
      const byLayer = Array.from({ length: model.numLayers }, (_, l) => median(runs.filter((run) => run.layer === l).map((run) => run.ms)));
      rounds.push({ sweepMs, patchedMs, fromEmbeddingsMs, sweepFromEmbeddingsMs: sweepMs - patchedMs + fromEmbeddingsMs, runMs: median(whole.ms), byLayer });
    }
    const middle = (key) => median(rounds.map((r) => r[key]));
    const result = {
      size: SIZE, tokens: TOKENS, layers: model.numLayers, heads: model.numHeads, dModel: model.dModel,
      build: engine.build, threads: engine.threads, rounds: ROUNDS, runs: model.numLayers * model.numHeads,
      sweepMs: middle('sweepMs'), patchedRunsMs: middle('patchedMs'), fromEmbeddingsRunMs: middle('runMs'),
      fromEmbeddingsMs: middle('fromEmbeddingsMs'), sweepFromEmbeddingsMs: middle('sweepFromEmbeddingsMs'),
      saving: median(rounds.map((r) => 1 - r.sweepMs / r.sweepFromEmbeddingsMs)),
      runMsByLayer: Array.from({ length: model.numLayers }, (_, l) => median(rounds.map((r) => r.byLayer[l]))),
    };
    const seconds = result.sweepMs / 1000;
    result.targets = [{
      what: `${SIZE}, ${result.threads} thread(s): the head sweep (${result.runs} runs) at ${TOKENS} tokens`, value: `${seconds.toFixed(1)} s`,
      target: `≤ ${TARGET_SECONDS} s, the issue's "a few seconds on 2 threads"`, met: seconds <= TARGET_SECONDS,
    }];
    return result;
  } finally {
    engine.dispose();
  }
}

export function reportPatch(r) {
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  return [
    `Patch: model.patch({ over: 'heads' }) on a ${SIZE}-sized model (${r.layers} layers × ${r.heads} heads, d ${r.dModel}) at ${r.tokens} tokens, ` +
      `${r.build}, ${r.threads} thread(s); medians of ${r.rounds} rounds`,
    `  the head sweep, ${r.runs} patched runs each from the layer it patches: ${s(r.sweepMs)} (its patched runs ${s(r.patchedRunsMs)}, ` +
      `the rest ${s(r.sweepMs - r.patchedRunsMs)}: the two recorded runs, the token's and against's runs, yielding)`,
    `  ms per patched run, by the layer it starts at (0 … ${r.layers - 1}): ${r.runMsByLayer.map((ms) => ms.toFixed(0)).join(' ')}`,
    `  ${r.runs} patched runs of layer 0, each a whole run from the embeddings: ${s(r.fromEmbeddingsMs)}, one ${r.fromEmbeddingsRunMs.toFixed(1)} ms`,
    `  the sweep with every run from the embeddings: ${s(r.sweepFromEmbeddingsMs)}; starting at the patched layer saves ${(100 * r.saving).toFixed(0)}%`,
    '',
    'Patch targets:',
    ...r.targets.map(targetLine),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(reportPatch(await benchPatch()));
