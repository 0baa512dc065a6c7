// The Chromium part of `npm run bench`, where users are: in headless Chromium (Debian's, through
// playwright-core), the two ceilings of peak.js (12 chains of mul+add, of relaxed_madd) and one
// BERT-base-shaped attention layer (d 768, 12 heads; 128 and 512 tokens, forwardView with every
// head's weights) through the relaxed-SIMD and the SIMD build at one thread, taking turns round by
// round. Reports GFLOP/s, each build's share of each ceiling, and relaxed over SIMD (medians of
// the per-round ratios). The page is served cross-origin isolated by tools/serve.js from the
// repository. Not measured here: onnxruntime-web, which the Node parts compare against.
// Run by bench.js, or alone: `node tools/bench/chromium.js`.
import { fileURLToPath } from 'node:url';
import { startServer } from '../serve.js';
import { launchBrowser } from '../../tests/e2e/browser.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHAPES = [{ n: 128, rounds: 15 }, { n: 512, rounds: 7 }];
const D = 768, HEADS = 12;

/** In the page: the ceilings, then each shape through both builds, round by round. */
async function inPage({ shapes, d, heads }) {
  const { loadEngine } = await import('/web/src/index.js');
  const { measureSimdPeak } = await import('/tools/bench/peak.js');
  const peaks = { simd: await measureSimdPeak(), 'relaxed-simd': await measureSimdPeak({ relaxed: true }) };
  const engines = { 'relaxed-simd': await loadEngine({ threads: 1, relaxedSimd: true }), simd: await loadEngine({ threads: 1, relaxedSimd: false }) };
  const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
  const out = [];
  for (const { n, rounds } of shapes) {
    const x = Float32Array.from({ length: n * d }, (_, i) => Math.sin(i * 0.37));
    const layers = Object.fromEntries(Object.entries(engines).map(([b, e]) => [b, e.createAttention({ dModel: d, numHeads: heads, seed: 1 })]));
    const run = (b) => {
      const start = performance.now();
      const trace = layers[b].forwardView(x, n);
      for (let h = 0; h < heads; h++) trace.weights(h);
      trace.output();
      return performance.now() - start;
    };
    const times = { 'relaxed-simd': [], simd: [] };
    for (let r = -2; r < rounds; r++) {
      for (const b of r % 2 ? ['relaxed-simd', 'simd'] : ['simd', 'relaxed-simd']) {
        const ms = run(b);
        if (r >= 0) times[b].push(ms);
      }
    }
    const flops = 8 * n * d * d + 4 * n * n * d;
    out.push({
      n,
      ms: Object.fromEntries(Object.entries(times).map(([b, t]) => [b, median(t)])),
      gflops: Object.fromEntries(Object.entries(times).map(([b, t]) => [b, flops / median(t) / 1e6])),
      relaxedOverPlain: median(times['relaxed-simd'].map((t, i) => times.simd[i] / t)), // speed, relaxed / SIMD
    });
    Object.values(layers).forEach((l) => l.dispose());
  }
  Object.values(engines).forEach((e) => e.dispose());
  return { userAgent: navigator.userAgent, builds: Object.fromEntries(Object.entries(engines).map(([b, e]) => [b, e.build])), peaks, shapes: out };
}

export async function benchChromium() {
  const [browser, server] = await Promise.all([launchBrowser(), startServer({ root: ROOT })]);
  try {
    const { page } = await browser.open(`${server.url}tools/bench/chromium.html`);
    return await page.evaluate(inPage, { shapes: SHAPES, d: D, heads: HEADS });
  } finally {
    await Promise.all([browser.close(), server.close()]);
  }
}

export function reportChromium({ userAgent, peaks, shapes }) {
  const chrome = userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? userAgent;
  const lines = [`In ${chrome} (headless), one thread: ceilings mul+add ${peaks.simd.toFixed(1)} GFLOP/s, ` +
    `relaxed_madd ${peaks['relaxed-simd'].toFixed(1)} GFLOP/s.`];
  for (const s of shapes) {
    const share = (b) => `${(100 * s.gflops[b] / peaks[b]).toFixed(0)}% of its ceiling`;
    lines.push(`  BERT-base-shaped layer, ${s.n} tokens: SIMD ${s.ms.simd.toFixed(1)} ms (${s.gflops.simd.toFixed(1)} GFLOP/s, ${share('simd')}), ` +
      `relaxed SIMD ${s.ms['relaxed-simd'].toFixed(1)} ms (${s.gflops['relaxed-simd'].toFixed(1)} GFLOP/s, ${share('relaxed-simd')}); ` +
      `relaxed is ${s.relaxedOverPlain.toFixed(2)}× SIMD's speed`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(reportChromium(await benchChromium()));
