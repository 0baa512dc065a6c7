// The decode part of `npm run bench`: model.generate() on real-size checkpoints (random weights,
// from make_checkpoints.py --size): SmolLM2-135M-, Qwen2.5-0.5B- (both BF16) and GPT-2-shaped (F32),
// at 1 and 2 threads. Each writes 16 tokens greedily after a 256-token prompt; a step's time is
// the median of its elapsedMs (choosing the token and running it). Against it, in the same run:
// - the floor, the time to read the model's weight bytes once through WASM memory (gemm-probe.js
//   stream), since a step reads every weight once (the target: at most 1.3 times it at one thread,
//   the relaxed-SIMD issue's, where the decode issue's was 1.5);
// - a whole run over 257 tokens, what writing one token costs without a KV cache (the target: a
//   step at most 1/20 of it, for SmolLM2-135M).
// `node tools/bench/decode.js [size …]` runs it alone.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { checkpoint } from './checkpoints.js';
import { targetLine } from './targets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SIZES = ['smollm2-135m', 'qwen2.5-0.5b', 'gpt2'];
const PROMPT = 256, NEW_TOKENS = 16;
const TARGETS = { floor: 1.3, recompute: 1 / 20 };
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Words that `model` makes into exactly `tokens` tokens (patch.js's prompt too). */
export function textOf(model, tokens) {
  const words = 'the old man saw a river and then it ran away from us'.split(' ');
  let text = '', count = 0;
  for (let i = 0, misses = 0; count < tokens && misses < words.length; i++) {
    const next = `${text}${text ? ' ' : ''}${words[i % words.length]}`;
    const n = model.tokenize(next).ids.length;
    if (n > tokens) {
      misses++; // a word of more tokens than are left: try the next
      continue;
    }
    [text, count, misses] = [next, n, 0];
  }
  if (count !== tokens) throw new Error(`bench: no text of exactly ${tokens} tokens (got ${count})`);
  return text;
}

/** The median ms of reading `bytes` once through WASM memory. */
function floorMs(bytes) {
  execFileSync(process.execPath, [`${ROOT}tools/build.js`, 'gemm-probe'], { stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(execFileSync(process.execPath, [`${ROOT}build/wasm/gemm-probe.js`, 'stream', String(bytes)], { encoding: 'utf8' })).ms;
}

export async function benchDecode(sizes = SIZES) {
  execFileSync(process.execPath, [`${ROOT}tools/build.js`, 'wasm'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const results = [];
  for (const size of sizes) {
    const folder = checkpoint(size);
    const bytes = statSync(`${folder}/model.safetensors`).size;
    const floor = floorMs(bytes);
    for (const threads of [1, 2]) {
      process.stderr.write(`bench: decode ${size} at ${threads} thread${threads > 1 ? 's' : ''}…\n`);
      const engine = await loadEngine({ threads });
      const model = await engine.loadModel(folder);
      const prompt = textOf(model, PROMPT);
      const steps = [];
      const writing = model.generate(prompt, { maxNewTokens: NEW_TOKENS });
      for await (const step of writing) steps.push(step.elapsedMs);
      const step = median(steps.slice(1)); // the first also touches the caches' fresh memory
      const full = [];
      const longer = textOf(model, PROMPT + 1);
      for (let r = 0; r < 3; r++) {
        const start = performance.now();
        model.run(longer);
        full.push(performance.now() - start);
      }
      results.push({ size, threads: engine.threads ?? 1, bytes, floorMs: floor, stepMs: step, tokensPerSecond: 1000 / step, fullRunMs: median(full) });
      engine.dispose();
    }
  }
  return { prompt: PROMPT, newTokens: NEW_TOKENS, results, targets: decodeTargets(results) };
}

function decodeTargets(results) {
  const list = [];
  for (const r of results.filter((x) => x.threads === 1)) {
    const v = r.stepMs / r.floorMs;
    list.push({ what: `${r.size}, 1 thread: a step / reading the weights once`, value: v.toFixed(2), target: `≤ ${TARGETS.floor}`, met: v <= TARGETS.floor });
  }
  for (const r of results.filter((x) => x.size === 'smollm2-135m')) {
    const v = r.stepMs / r.fullRunMs;
    list.push({ what: `smollm2-135m, ${r.threads} thread(s): a step / a whole run over ${PROMPT + 1} tokens`, value: v.toFixed(3),
      target: `≤ ${TARGETS.recompute.toFixed(3)}`, met: v <= TARGETS.recompute });
  }
  return list;
}

export function reportDecode({ prompt, newTokens, results, targets }) {
  const lines = [`Decode: ${newTokens} tokens written greedily after ${prompt}, median step (token chosen and run)`];
  lines.push(`  ${'model'.padEnd(15)}${'threads'.padStart(8)}${'step ms'.padStart(10)}${'tokens/s'.padStart(10)}${'floor ms'.padStart(10)}${'step/floor'.padStart(12)}${'whole run ms'.padStart(14)}${'speedup'.padStart(9)}`);
  for (const r of results) {
    lines.push(`  ${r.size.padEnd(15)}${String(r.threads).padStart(8)}${r.stepMs.toFixed(1).padStart(10)}${r.tokensPerSecond.toFixed(1).padStart(10)}` +
      `${r.floorMs.toFixed(1).padStart(10)}${(r.stepMs / r.floorMs).toFixed(2).padStart(12)}${r.fullRunMs.toFixed(0).padStart(14)}${(r.fullRunMs / r.stepMs).toFixed(1).padStart(9)}`);
  }
  lines.push('  floor: reading the model.safetensors bytes once through WASM memory; speedup: a whole run over the text so far / a step', '', 'Decode targets:');
  for (const t of targets) lines.push(targetLine(t));
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv.slice(2);
  console.log(reportDecode(await benchDecode(sizes.length ? sizes : undefined)));
}
