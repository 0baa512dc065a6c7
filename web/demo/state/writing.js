// The page's writing, as pure functions: the options the reader may choose, and how the result on
// screen grows a token at a time (whether Write can start is needed.js's canWrite). A writing starts from
// the run on screen, cut to its prompt (a causal model's prompt rows do not depend on what
// follows), and each step adds the new token and the new query's row in every layer the page
// holds. A layer's matrices are assembled from its prompt block and the rows only when a view
// reads them, so a step costs the page no more than the rows it brings.

/** The most tokens one Write asks for. */
export const MAX_NEW_TOKENS = 256;

export const WRITE_DEFAULTS = Object.freeze({ maxNewTokens: 32, temperature: 0, topK: 0, topP: 1, seed: 0 });

/** What each option accepts: [lowest, highest, whole numbers only]; topP excludes its lowest. */
export const WRITE_LIMITS = Object.freeze({
  maxNewTokens: [1, MAX_NEW_TOKENS, true], temperature: [0, 5, false], topK: [0, 1000, true], topP: [0, 1, false], seed: [0, 0xffffffff, true],
});

/** Whether `value` is a value option `name` accepts. */
export function validWriteOption(name, value) {
  const [low, high, whole] = WRITE_LIMITS[name];
  return typeof value === 'number' && Number.isFinite(value) && value >= low && value <= high && (!whole || Number.isInteger(value)) &&
    !(name === 'topP' && value === 0);
}

/** `options` over `before`: each option `options` gives and accepts replaces `before`'s. */
export function fitWrite(options, before) {
  const fitted = { ...before };
  for (const name of Object.keys(WRITE_DEFAULTS)) if (validWriteOption(name, options[name])) fitted[name] = options[name];
  return Object.keys(fitted).every((k) => fitted[k] === before[k]) ? before : Object.freeze(fitted);
}

/**
 * The run on screen cut to its first `p` tokens (the prompt), ready to grow: the layers it holds,
 * each head's matrix cut to its top-left p × p block, and nothing else computed over the whole text.
 */
export function promptRun(run, p, key) {
  const n = run.tokens.length;
  const layers = run.layers.map((layer) => layer && Object.freeze({
    numHeads: layer.numHeads,
    weights: layer.weights.map((w) => {
      if (p === n) return w;
      const cut = new Float32Array(p * p);
      for (let r = 0; r < p; r++) cut.set(w.subarray(r * n, r * n + p), r * p);
      return cut;
    }),
  }));
  return Object.freeze({
    ...run, key, tokens: run.tokens.slice(0, p), unknown: run.unknown.slice(0, p), totalTokens: p, layers, overview: null, summaries: new Map(),
    traced: null, roles: null, changes: null, nextTokens: new Map(), promptLength: p, steps: Object.freeze([]), partial: true,
    prompt: Object.freeze(layers), rows: Object.freeze(layers.map((l) => (l ? Object.freeze([]) : null))),
  });
}

/**
 * `run` with one more token: `step` (a WrittenStep) and, per layer in `rows` ([{ layer, weights:
 * per head (1 × n + 1) }]), the new query's row. What the model expected before it is kept as the
 * predictions after the token before, so pointing there shows the step's alternatives.
 */
export function grownRun(run, step, rows, key) {
  const held = new Map(rows.map(({ layer, weights }) => [layer, weights]));
  const stepRows = run.rows.map((list, l) => (list && held.has(l) ? Object.freeze([...list, held.get(l)]) : null));
  const n = run.tokens.length + 1;
  const layers = run.prompt.map((prompt, l) => (prompt && stepRows[l] ? grownLayer(prompt, stepRows[l], run.promptLength, n) : undefined));
  const { elapsedMs, ...shown } = step;
  return Object.freeze({
    ...run, key, tokens: [...run.tokens, step.token], unknown: [...run.unknown, false], totalTokens: n, layers, rows: Object.freeze(stepRows),
    steps: Object.freeze([...run.steps, Object.freeze(shown)]),
    nextTokens: new Map(run.nextTokens).set(step.position - 1, { top: step.alternatives }),
  });
}

/**
 * A layer of n tokens from its prompt's (p × p per head) and each step's rows: its `weights`, each
 * (n × n), are assembled when first read, once.
 */
function grownLayer(prompt, steps, p, n) {
  let weights = null;
  return Object.freeze({
    numHeads: prompt.numHeads,
    get weights() {
      weights ??= prompt.weights.map((w, h) => {
        const out = new Float32Array(n * n);
        for (let r = 0; r < p; r++) out.set(w.subarray(r * p, (r + 1) * p), r * n);
        steps.forEach((row, s) => out.set(row[h], (p + s) * n));
        return out;
      });
      return weights;
    },
  });
}
