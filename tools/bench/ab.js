// A/B against another checkout: `node tools/bench/ab.js <folder>` times this checkout's engine and
// the one in <folder> (a clone at another commit, with its own `node tools/build.js wasm` done) in
// the same process, taking turns round by round: the single layer on BERT-base's shapes (S2, S3 of
// bench.js) and the whole BERT-base at 128 tokens (build/checkpoints/bert-base, which
// `npm run bench` makes), on one thread. Prints each time's median and the median of the per-round
// ratios, this / other, and the ratio of the fastest runs (the least disturbed by other work on a
// shared machine): a change that claims "no slower" shows it here, within this run's noise.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const other = process.argv[2];
if (!other || !existsSync(`${other}/dist/multihead-simd.wasm`)) {
  console.error('usage: node tools/bench/ab.js <another checkout, with dist/ built>');
  process.exit(2);
}
const CHECKPOINT = `${ROOT}build/checkpoints/bert-base`;
if (!existsSync(`${CHECKPOINT}/model.safetensors`)) {
  console.error(`ab: ${CHECKPOINT} is missing; npm run bench makes it (or python3 tools/make_checkpoints.py --size bert-base)`);
  process.exit(2);
}
const ROUNDS = 31;
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function contestants(folder, label) {
  const { loadEngine } = await import(pathToFileURL(`${resolve(folder)}/web/src/index.js`).href);
  const engine = await loadEngine({ threads: 1 });
  const model = await engine.loadModel(CHECKPOINT);
  const text = Array(126).fill('the').join(' '); // [CLS] + 126 + [SEP]
  const layers = [128, 512].map((n) => {
    const layer = engine.createAttention({ dModel: 768, numHeads: 12, seed: 1 });
    const x = Float32Array.from({ length: n * 768 }, (_, i) => Math.sin(i * 0.37));
    return {
      key: `layer n=${n}`,
      run() {
        const trace = layer.forwardView(x, n);
        for (let h = 0; h < 12; h++) trace.weights(h);
        trace.output();
      },
    };
  });
  const whole = {
    key: 'BERT-base, 128 tokens',
    run() {
      const result = model.run(text);
      if (result.tokens.length !== 128) throw new Error(`ab: ${result.tokens.length} tokens, not 128`);
      for (let l = 0; l < 12; l++) for (let h = 0; h < 12; h++) result.attention(l, h);
    },
  };
  return [...layers, whole].map((c) => ({ ...c, label }));
}

const sides = [await contestants(ROOT, 'this'), await contestants(other, 'other')];
const times = {};
for (let round = -2; round < ROUNDS; round++) { // two warm-up rounds
  for (const side of round % 2 ? sides : [...sides].reverse()) {
    for (const c of side) {
      const start = performance.now();
      c.run();
      const ms = performance.now() - start;
      if (round >= 0) ((times[c.key] ??= { this: [], other: [] })[c.label]).push(ms);
    }
  }
}
const rows = Object.entries(times).map(([key, t]) => ({
  run: key,
  'this ms': median(t.this).toFixed(2),
  'other ms': median(t.other).toFixed(2),
  'this / other': median(t.this.map((ms, i) => ms / t.other[i])).toFixed(3),
  'fastest, this / other': (Math.min(...t.this) / Math.min(...t.other)).toFixed(3),
}));
console.table(rows);
process.exit(0);
