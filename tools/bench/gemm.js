// The GEMM part of `npm run bench`: the F32 GEMM kernel of each SIMD build (gemm-probe.cpp's `bert`
// mode: BERT-base's shapes at 128 and 512 tokens) against the two ceilings of peak.js, measured in
// this process: 12 chains of mul+add (WASM SIMD128) and 12 of relaxed_madd (relaxed SIMD). The two
// probes take turns over ROUNDS rounds, each a fresh Node process, and each round also measures
// both ceilings again; reported are medians, and the medians of the per-round shares and ratios.
// Run by bench.js (Node with --experimental-wasm-relaxed-simd) or alone the same way:
// `node --experimental-wasm-relaxed-simd tools/bench/gemm.js`.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { measureSimdPeak } from './peak.js';
import { targetLine } from './targets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROUNDS = 3;
const TARGET = 0.9; // the relaxed GEMM's share of the relaxed ceiling, on BERT-base's shapes
const PROBES = { simd: 'gemm-probe', 'relaxed-simd': 'gemm-probe-relaxed' };

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

function probe(build) {
  const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--no-experimental-fetch',
    `${ROOT}build/wasm/${PROBES[build]}.js`, 'bert'], { encoding: 'utf8' });
  return JSON.parse(out).shapes;
}

export async function benchGemm() {
  execFileSync(process.execPath, [`${ROOT}tools/build.js`, 'gemm-probe'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    process.stderr.write(`bench: GEMM round ${r + 1} of ${ROUNDS}…\n`);
    const builds = r % 2 ? ['relaxed-simd', 'simd'] : ['simd', 'relaxed-simd'];
    const round = { peaks: { simd: await measureSimdPeak(), 'relaxed-simd': await measureSimdPeak({ relaxed: true }) }, shapes: {} };
    for (const build of builds) round.shapes[build] = probe(build);
    rounds.push(round);
  }
  const keys = rounds[0].shapes.simd.map((s) => ({ m: s.m, what: s.what }));
  const pick = (round, build, i) => round.shapes[build][i].gflops;
  const shapes = keys.map((key, i) => ({
    ...key,
    gflops: Object.fromEntries(Object.keys(PROBES).map((b) => [b, median(rounds.map((r) => pick(r, b, i)))])),
    // each kernel's share of each ceiling, and relaxed over plain, per round
    share: Object.fromEntries(Object.keys(PROBES).map((b) => [b, Object.fromEntries(Object.keys(PROBES).map((ceiling) =>
      [ceiling, median(rounds.map((r) => pick(r, b, i) / r.peaks[ceiling]))]))])),
    relaxedOverPlain: median(rounds.map((r) => pick(r, 'relaxed-simd', i) / pick(r, 'simd', i))),
  }));
  const peaks = Object.fromEntries(Object.keys(PROBES).map((b) => [b, median(rounds.map((r) => r.peaks[b]))]));
  const layers = shapes.filter((s) => s.what === 'layer');
  const targets = layers.map((s) => ({
    what: `relaxed-SIMD GEMM, a BERT-base layer at ${s.m} tokens: share of the relaxed_madd ceiling`,
    value: s.share['relaxed-simd']['relaxed-simd'].toFixed(2), target: `≥ ${TARGET}`, met: s.share['relaxed-simd']['relaxed-simd'] >= TARGET,
  }));
  return { rounds: ROUNDS, peaks, shapes, targets };
}

export function reportGemm({ rounds, peaks, shapes, targets }) {
  const pad = (v, w) => String(v).padStart(w);
  const pct = (x) => `${(100 * x).toFixed(0)}%`;
  const lines = [
    `GEMM kernels on BERT-base's shapes, F32, one thread, medians of ${rounds} rounds (gemm-probe.cpp bert).`,
    `Ceilings (peak.js, 12 independent chains): mul+add ${peaks.simd.toFixed(1)} GFLOP/s, relaxed_madd ${peaks['relaxed-simd'].toFixed(1)} GFLOP/s.`,
    '',
    `${'tokens'.padEnd(7)}${'GEMM'.padEnd(22)}${pad('SIMD', 8)}${pad('of m+a', 8)}${pad('of madd', 9)}${pad('relaxed', 9)}${pad('of m+a', 8)}${pad('of madd', 9)}${pad('relaxed/SIMD', 14)}`,
  ];
  for (const s of shapes) {
    lines.push(`${String(s.m).padEnd(7)}${s.what.padEnd(22)}${pad(s.gflops.simd.toFixed(1), 8)}${pad(pct(s.share.simd.simd), 8)}` +
      `${pad(pct(s.share.simd['relaxed-simd']), 9)}${pad(s.gflops['relaxed-simd'].toFixed(1), 9)}${pad(pct(s.share['relaxed-simd'].simd), 8)}` +
      `${pad(pct(s.share['relaxed-simd']['relaxed-simd']), 9)}${pad(s.relaxedOverPlain.toFixed(2), 14)}`);
  }
  lines.push('', 'GEMM targets:');
  for (const t of targets) lines.push(targetLine(t));
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(reportGemm(await benchGemm()));
