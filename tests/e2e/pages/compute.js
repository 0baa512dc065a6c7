// The one forward pass the loading tests run everywhere: in a page, a module worker, a Vite
// bundle and Node. loadEngine is passed in so each caller uses the package as it imported it.
// Not an accuracy test (tests/js has those): it only shows that every way of loading agrees.

export const CASE = Object.freeze({ dModel: 12, numHeads: 3, causal: true, seed: 1, nTokens: 5 });

/** The input tokens (nTokens × dModel): exact binary fractions in [-2, 2], identical in every JS engine. */
export function caseInput() {
  const { nTokens, dModel } = CASE;
  return Float32Array.from({ length: nTokens * dModel }, (_, i) => ((i * 37) % 17) / 4 - 2);
}

/** loadEngine's options for each build engine.build names; undefined lets the engine choose. */
export function buildOptions(build) {
  return { 'relaxed-simd': { relaxedSimd: true }, simd: { relaxedSimd: false }, scalar: { simd: false } }[build] ?? {};
}

/**
 * Loads the requested build ('relaxed-simd', 'simd', 'scalar', or undefined for feature
 * detection; threads undefined = one per core where the page allows), runs CASE and returns plain
 * numbers, which survive postMessage and page.evaluate unchanged.
 */
export async function runCase(loadEngine, build, threads) {
  const engine = await loadEngine({ ...buildOptions(build), threads });
  try {
    const { nTokens, ...config } = CASE;
    const trace = engine.createAttention(config).forward(caseInput(), nTokens);
    const output = Array.from(trace.output()); // (nTokens, dModel)
    const weights = Array.from(trace.weights(0)); // head 0, (nTokens, nTokens)
    const rowSums = Array.from({ length: nTokens }, (_, i) => sum(weights.slice(i * nTokens, (i + 1) * nTokens)));
    return { build: engine.build, threads: engine.threads, threadsError: engine.threadsError?.message ?? null, outputSum: sum(output), rowSums, weights, output };
  } finally {
    engine.dispose(); // also disposes the layer
  }
}

function sum(values) {
  return values.reduce((a, b) => a + b, 0);
}

export const MODEL_SENTENCE = 'The cat sat on the mat because it was tired.';

/** Runs the default model on `text`; returns plain numbers: tokens, ids, layer 0 head 0, hidden. */
export async function runModel(loadEngine, text, build) {
  const engine = await loadEngine(buildOptions(build));
  try {
    const model = await engine.loadModel();
    const r = model.run(text);
    return { build: engine.build, tokens: r.tokens, ids: Array.from(r.ids), attention: Array.from(r.attention(0, 0)),
      hidden: Array.from(r.hidden) };
  } finally {
    engine.dispose();
  }
}
