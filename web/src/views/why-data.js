// What the Why? view draws, taken from a model and its result: the parts of one prediction's logit,
// the logit lens over the positions up to it, and one head's queries and keys on a map. The page's
// worker and the <multihead-view> element both make it here, as plain arrays that can be posted.
// Which position, token and head are the caller's choice; the defaults are whyPosition()'s.
import { topIndices } from '../model/likeliest.js';

/**
 * The logit lens reads every layer through the LM head at each position of its table: numLayers + 1
 * products with the vocabulary each. A table costs at most this many multiply-adds, so it stays
 * within a second or so on two threads: eight positions of GPT-2, one of Qwen2.5-0.5B.
 */
const LENS_BUDGET = 4e9;
const LENS_MAX = 8; // positions: a wider table no longer fits beside the map
const LENS_TOP = 5;
const QUERY_KEY_TOP = 3; // keys linked to a hovered query

/**
 * The position whose prediction the Why? view explains when the reader chose none: the last of a
 * causal model (what it writes next), else the first mask token, else the first token after a
 * leading special token ([CLS]).
 */
export function whyPosition(model, ids) {
  if (model.causal) return ids.length - 1;
  const mask = model.specialTokens.mask?.id;
  const at = mask === undefined ? -1 : [...ids].indexOf(mask);
  if (at >= 0) return at;
  return ids.length > 1 && model.token(ids[0]).special ? 1 : 0;
}

/** `position` within the result's tokens, or the default one when it is null or past the end. */
export function fitPosition(model, result, position) {
  return Number.isInteger(position) && position >= 0 && position < result.ids.length ? position : whyPosition(model, result.ids);
}

/**
 * What the Why? view explains at `position` (null: whyPosition's) of `result`: { position,
 * contributions, lens }, or { position, error } when the model has no LM head or the token or
 * against given is not one token of its vocabulary (the message names which).
 */
export function explainAt(model, result, position, choices) {
  const at = fitPosition(model, result, position);
  if (!model.hasLmHead) return { position: at, error: 'This model has no language-model head, so it makes no prediction to explain.' };
  try {
    return { position: at, contributions: whyContributions(result, at, choices), lens: whyLens(model, result, at) };
  } catch (error) {
    if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
    return { position: at, error: error.message };
  }
}

/**
 * The parts of the logit of `token` (default: the top prediction), or of `token − against`, at
 * `position` (result.contributions), as plain arrays. Empty strings mean "not given".
 */
export function whyContributions(result, position, { token = '', against = '' } = {}) {
  const options = {};
  if (token !== '') options.token = token;
  if (against !== '') options.against = against;
  const c = result.contributions(position, options);
  return {
    position, token: { ...c.token }, against: c.against ? { ...c.against } : null, heads: c.heads.map((h) => Float64Array.from(h)),
    mlps: Float64Array.from(c.mlps), embeddings: c.embeddings, biases: c.biases, total: c.total, logit: c.logit, softcap: c.softcap,
  };
}

/**
 * The logit lens as a table: rows 'embeddings', 'layer 1'… and a column per position of a window
 * that ends at `position` (a causal model's tokens before it; a masked model's around it), as many
 * as LENS_BUDGET allows for this model's size. cells[row][column] lists the top five.
 */
export function whyLens(model, result, position) {
  const perPosition = (model.numLayers + 1) * model.vocabSize * model.dModel;
  const span = Math.max(1, Math.min(LENS_MAX, Math.floor(LENS_BUDGET / perPosition)));
  const n = result.ids.length;
  const first = model.causal ? Math.max(0, position - span + 1) : Math.max(0, Math.min(position - (span >> 1), n - span));
  const positions = Array.from({ length: Math.min(span, n - first) }, (_, i) => first + i);
  const columns = positions.map((p) => result.logitLens(p, LENS_TOP));
  const layers = ['embeddings', ...Array.from({ length: model.numLayers }, (_, l) => `layer ${l + 1}`)];
  const cells = layers.map((_, row) => columns.map((column) => column[row].map(({ token, id, probability }) => ({ token, id, probability }))));
  return { positions, layers, cells };
}

/**
 * Head `head` of layer `layer`'s queries and keys on one map (result.queryKeyMap), with, for each
 * query, the QUERY_KEY_TOP keys it attends to most (best first), which the view links on hover.
 */
export function whyQueryKeys(result, layer, head) {
  const map = result.queryKeyMap(layer, head);
  const weights = result.attention(layer, head);
  const n = result.tokens.length;
  const k = Math.min(QUERY_KEY_TOP, n);
  const top = new Int32Array(n * k);
  for (let q = 0; q < n; q++) {
    // Keys a mask or a window hides weigh 0: a query that sees fewer than k repeats its best key.
    const seen = topIndices(weights.subarray(q * n, (q + 1) * n), k).filter((key, i) => i === 0 || weights[q * n + key] > 0);
    for (let i = 0; i < k; i++) top[q * k + i] = seen[i] ?? seen[0];
  }
  return { layer, head, queries: map.queries, keys: map.keys, variance: [...map.explained], top, k };
}

/** Every ArrayBuffer of why data ({ contributions, queryKeys }), to move it between threads. */
export function whyBuffers({ contributions, queryKeys } = {}) {
  const arrays = [...contributions?.heads ?? [], contributions?.mlps, queryKeys?.queries, queryKeys?.keys, queryKeys?.top].filter(Boolean);
  return [...new Set(arrays.map((a) => a.buffer))];
}
