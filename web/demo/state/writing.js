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
 * The keys of a run of n queries: a cross-attention's are the source's, whatever is written; a
 * self-attention's are its queries.
 */
const keysOf = (run, n) => run.keyTokens?.length ?? n;

/**
 * The run on screen cut to its first `p` tokens (the prompt), ready to grow: the layers it holds,
 * each head's matrix cut to its first p rows and keys, and nothing else computed over the whole text.
 */
export function promptRun(run, p, key) {
  const n = run.tokens.length;
  const [keys, kept] = [keysOf(run, n), keysOf(run, p)];
  const layers = run.layers.map((layer) => layer && Object.freeze({
    numHeads: layer.numHeads,
    weights: layer.weights.map((w) => {
      if (p === n) return w;
      const cut = new Float32Array(p * kept);
      for (let r = 0; r < p; r++) cut.set(w.subarray(r * keys, r * keys + kept), r * kept);
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
 * per head (1 × n + 1), or (1 × the source's) for a cross-attention }]), the new query's row. What the model expected before it is kept as the
 * predictions after the token before, so pointing there shows the step's alternatives.
 */
export function grownRun(run, step, rows, key) {
  const held = new Map(rows.map(({ layer, weights }) => [layer, weights]));
  const stepRows = run.rows.map((list, l) => (list && held.has(l) ? Object.freeze([...list, held.get(l)]) : null));
  const n = run.tokens.length + 1;
  const layers = run.prompt.map((prompt, l) => (prompt && stepRows[l] ? grownLayer(prompt, stepRows[l], run.promptLength, n, run.keyTokens ? keysOf(run, n) : null) : undefined));
  const { elapsedMs, ...shown } = step;
  return Object.freeze({
    ...run, key, tokens: [...run.tokens, step.token], unknown: [...run.unknown, false], totalTokens: n, layers, rows: Object.freeze(stepRows),
    steps: Object.freeze([...run.steps, Object.freeze(shown)]),
    nextTokens: new Map(run.nextTokens).set(step.position - 1, { top: step.alternatives }),
  });
}

/**
 * A layer of n tokens from its prompt's (p × p per head; p × keys for a cross-attention's fixed
 * `keys`) and each step's rows: its `weights`, each (n × n, or n × keys), are assembled when first read, once.
 */
function grownLayer(prompt, steps, p, n, keys = null) {
  let weights = null;
  const [before, after] = keys === null ? [p, n] : [keys, keys]; // the keys of the prompt's rows, and of the grown ones
  return Object.freeze({
    numHeads: prompt.numHeads,
    get weights() {
      weights ??= prompt.weights.map((w, h) => {
        const out = new Float32Array(n * after);
        for (let r = 0; r < p; r++) out.set(w.subarray(r * before, (r + 1) * before), r * after);
        steps.forEach((row, s) => out.set(row[h], (p + s) * after));
        return out;
      });
      return weights;
    },
  });
}
