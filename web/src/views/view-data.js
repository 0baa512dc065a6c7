// What the views draw, taken from the engine's results: every layer's attention weights, every
// matrix of one layer as plain arrays, and the data one view needs from a list of such layers.
// The page (through its worker) and the <multihead-view> element both use it, so a view shows the
// same numbers wherever it is embedded. It touches no page. Only the four-steps view needs a
// layer's full trace, which the engine computes when asked: callers ask for the layer on screen,
// never for all of them (twelve full traces of BERT-base at 512 tokens are hundreds of MB).
import { averageHeads, rollout } from '../analysis/rollout.js';

/**
 * Every matrix of one layer's attention, copied out of `trace` (an AttentionTrace); with the
 * layer's `rotation` (model.rotation(layer), RoPE), also Q and K before it.
 */
export function layerMatrices(trace, input, rotation = null) {
  const heads = Array.from({ length: trace.numHeads }, (_, h) => h);
  return {
    dModel: trace.dModel,
    numHeads: trace.numHeads,
    numKeyValueHeads: trace.numKeyValueHeads,
    dHead: trace.headDim,
    kvHeads: heads.map((h) => trace.kvHead(h)), // the key/value head each query head reads
    input, // (nQueries, dModel)
    queries: heads.map((h) => trace.queries(h)), // (nQueries, dHead) each
    keys: heads.map((h) => trace.keys(h)), // (nKeys, dHead) each, K of the head's key/value head
    values: heads.map((h) => trace.values(h)),
    weights: heads.map((h) => trace.weights(h)), // (nQueries, nKeys) each
    headOutputs: heads.map((h) => trace.headOutput(h)), // (nQueries, dHead) each
    concat: trace.concat(), // (nQueries, numHeads·dHead)
    output: trace.output(), // (nQueries, dModel)
    ...rotation ? {
      rotation, // { dimensions, frequencies }
      queriesBeforeRotation: heads.map((h) => trace.queriesBeforeRotation(h)),
      keysBeforeRotation: heads.map((h) => trace.keysBeforeRotation(h)),
    } : {},
  };
}

/** Every layer's attention weights of a model.run() result: [{ numHeads, weights: (n, n) per head }]. */
export function attentionLayers(result) {
  return Array.from({ length: result.numLayers }, (_, l) => layerWeights(result, l));
}

/** One layer's attention weights of a model.run() result: { numHeads, weights: (n, n) per head }. */
export function layerWeights(result, layer) {
  return { numHeads: result.numHeads, weights: Array.from({ length: result.numHeads }, (_, h) => result.attention(layer, h)) };
}

/**
 * The most rows and columns of a model-view thumbnail: a thumbnail is 50 to 100 px wide, and
 * Qwen2.5-0.5B's 336 heads at 1024 tokens would be 1.4 GB of weights.
 */
export const OVERVIEW_SIZE = 128;

/**
 * Every head of every layer of a model.run() result for the model view, { block, labels,
 * keyLabels?, layers: [{ weights: per head }] }: each matrix pooled into blocks of `block` tokens
 * (the mean weight over each block's cells), so it has at most `size` rows and columns; `labels`
 * names each block's query tokens, and `keyLabels` its key tokens when they are others (a
 * cross-attention's result.keyTokens). Below `size` tokens block is 1, and the weights and labels
 * are the run's own. Reads one layer at a time, so a run that keeps few layers recomputes each
 * once. The layers in `sent` (those the page's worker streamed already) are null.
 */
export function overviewOf(result, size = OVERVIEW_SIZE, sent = new Set()) {
  const { tokens, keyTokens } = result;
  const nKeys = keyTokens?.length ?? tokens.length;
  const { block, labels } = overviewBlocks(tokens, size, nKeys);
  const keyLabels = keyTokens ? overviewBlocks(keyTokens, size, tokens.length).labels : undefined;
  const layers = Array.from({ length: result.numLayers }, (_, l) => (sent.has(l) ? null
    : { weights: thumbnails(Array.from({ length: result.numHeads }, (_, h) => result.attention(l, h)), tokens.length, block, nKeys) }));
  return { block, labels, ...keyTokens ? { keyLabels } : {}, layers };
}

/**
 * The blocks of the model view of `tokens` (queries) over `nKeys` keys (as many by default):
 * { block, labels }, as overviewOf makes them; one block size for both axes, so the longer sets it.
 */
export function overviewBlocks(tokens, size = OVERVIEW_SIZE, nKeys = tokens.length) {
  const n = tokens.length;
  const block = Math.ceil(Math.max(n, nKeys) / size), m = Math.ceil(n / block);
  const labels = block === 1 ? tokens : Array.from({ length: m }, (_, i) => `tokens ${i * block + 1}–${Math.min(n, (i + 1) * block)}`);
  return { block, labels };
}

/** One layer's heads (n × nKeys each) as the model view's thumbnails, in blocks of `block` tokens (overviewBlocks). */
export function thumbnails(heads, n, block, nKeys = n) {
  return block === 1 ? heads : heads.map((a) => pooled(a, n, nKeys, block));
}

/** (n × nKeys) `a` as (m × mKeys) means over blocks of `block` rows and columns, m = ⌈n / block⌉. */
function pooled(a, n, nKeys, block) {
  const m = Math.ceil(n / block), mKeys = Math.ceil(nKeys / block);
  const sums = new Float64Array(m * mKeys);
  for (let i = 0; i < n; i++) {
    const row = Math.floor(i / block) * mKeys;
    for (let j = 0; j < nKeys; j++) sums[row + Math.floor(j / block)] += a[i * nKeys + j];
  }
  const size = (k, total) => Math.min(total, (k + 1) * block) - k * block; // the last block may be short
  return Float32Array.from(sums, (v, k) => v / (size(Math.floor(k / mKeys), n) * size(k % mKeys, nKeys)));
}

/** The key of an average ('average') or rollout ('rollout') of layer `layer` in a result's `summaries`. */
export const summaryKey = (kind, layer) => `${kind} ${layer}`;

/**
 * Attention rollout of a model.run() result's layers 0 to `layer` (rollout.js), read one layer at
 * a time.
 */
export function rolloutTo(result, layer) {
  const { tokens, causal, numHeads } = result;
  return rollout({ tokens, causal, numLayers: layer + 1, numHeads, attention: (l, h) => result.attention(l, h) });
}

/**
 * What the views draw of a model's shape: `kvHeads`, the key/value head each query head reads
 * (grouped-query attention), and `windows`, each layer's sliding window (null: full attention).
 */
export function attentionShape(model) {
  const group = model.numHeads / model.numKeyValueHeads;
  return {
    kvHeads: Array.from({ length: model.numHeads }, (_, h) => Math.floor(h / group)),
    windows: Array.from({ length: model.numLayers }, (_, l) => model.attentionWindow(l)),
  };
}

/**
 * Layer `layer` of a model.run() result with all its matrices (the engine computes them now);
 * `rotation` is the layer's model.rotation(layer).
 */
export function tracedLayer(result, layer, rotation = null) {
  return layerMatrices(result.trace(layer), result.layerInput(layer), rotation);
}

/**
 * A list of attentionLayers as the analysis functions read a run (rollout.js), cut to its first
 * `layers` layers.
 */
function runOfLayers({ tokens, keyTokens, causal }, layers) {
  return { tokens, keyTokens, causal, numLayers: layers.length, numHeads: layers[0].weights.length, attention: (l, h) => layers[l].weights[h] };
}

/**
 * What view `view` ('grid', 'head', 'lines', 'steps', 'average' or 'rollout') draws for layer
 * `index`: `result` holds { tokens, unknown, layers } (layers as attentionLayers, and as
 * layerMatrices for the steps view's layer; the page holds only the layers it shows, with the model
 * view's `overview` (overviewOf) and the averages and rollouts it shows, `summaries`: a Map from
 * "average 3" or "rollout 3"), `head` is a head index, a list of them (lines view)
 * or 'all'; `toy` names the layer as the page's toy layer and prints numbers. The grid takes index
 * 'all': every layer's heads, the model view, with each head's top role from `roles` (a list of
 * { layer, head, top }) and the heads in `ablated` ([{ layer, head }]) marked as switched off.
 * 'average' is the layer's mean over heads; 'rollout' is attention rollout up to that layer.
 * `result.causal` marks a causal model's masked triangle, `result.windows` (per layer: the keys a
 * query sees, or null for full attention) a sliding window's, and `result.kvHeads` (per query head,
 * the key/value head it reads) groups the heads that share one. `row` marks one query row in the
 * grid's heads (pooled with the model view's blocks) and pins it in the head view. The Why? view
 * draws the result's `why` (why-data.js's parts and lens at its position) and `queryKeys`, with a
 * patch sweep's result (`patch`) or progress (`patching`, { done, total }).
 */
export function viewData(view, result, index, { head = 0, toy = false, roles = null, ablated = [], row = null, patch = null, patching = null } = {}) {
  const { tokens, unknown } = result;
  if (view === 'why') return whyData(result, patch, patching, toy);
  // A cross-attention's keys are the source's tokens, its rows the target's.
  const keys = result.keyTokens ? { keyTokens: result.keyTokens, keyUnknown: result.keyUnknown ?? [] } : {};
  const causal = Boolean(result.causal); // the grid and the head view hatch the masked triangle
  const windows = result.windows ?? [];
  const kvHeads = result.kvHeads ?? null;
  const windowOf = (l) => windows[l] ?? null;
  if (index === 'all') {
    if (view !== 'grid') throw new RangeError(`only the grid view shows every layer, not the ${view} view`);
    const off = new Set(ablated.map(({ layer, head: h }) => `${layer}.${h}`));
    const sliding = windows.some((w) => w !== null);
    // The page's worker sends the model view pooled (overviewOf); the element holds every layer.
    // While the page's worker streams a run (its layers come as they are computed), the layers
    // still to come are rows without weights.
    const { block, labels, keyLabels, layers } = result.overview ?? { block: 1, labels: tokens, keyLabels: result.keyTokens, layers: result.layers };
    const heads = result.numHeads ?? layers.find(Boolean).weights.length;
    const rows = Array.from({ length: result.numLayers ?? layers.length }, (_, i) => ({
      // A model with sliding-window layers says of each layer whether it slides or sees every key.
      title: `Layer ${i + 1}${sliding ? windowOf(i) === null ? ' · full' : ` · window ${windowOf(i)}` : ''}`,
      heads,
      weights: layers[i]?.weights ?? null,
      // Pooled, the blocks wholly outside the window: key block J ≤ I − ⌈(W + block − 1) / block⌉.
      window: windowOf(i) === null ? null : Math.ceil((windowOf(i) + block - 1) / block),
      roles: roles ? Array.from({ length: heads }, (_, h) => roles.find((r) => r.layer === i && r.head === h)?.top ?? null) : undefined,
      ablated: Array.from({ length: heads }, (_, h) => off.has(`${i}.${h}`)),
    }));
    const title = block === 1 ? 'Every layer' : `Every layer, each thumbnail in blocks of ${block} tokens (their mean weight)`;
    const pooledKeys = keyLabels ? { keyTokens: keyLabels, keyUnknown: block === 1 ? keys.keyUnknown : [] } : {};
    return { tokens: labels, unknown: block === 1 ? unknown : [], ...pooledKeys, rows, title, causal, kvHeads, row: row === null ? null : Math.floor(row / block) };
  }
  const layer = result.layers[index]; // absent for the rollout view, when the page has not asked for it
  const where = toy ? 'Toy layer' : `Layer ${index + 1}`;
  const heads = head === 'all' ? layer.weights.map((_, h) => h) : [head].flat();
  const window = toy ? null : windowOf(index);
  switch (view) {
    case 'grid':
      return { tokens, unknown, ...keys, weights: layer.weights, title: where, causal, window, kvHeads: toy ? null : kvHeads, row };
    case 'head':
      return {
        tokens, unknown, ...keys, weights: layer.weights[heads[0]], title: `${where}, head ${heads[0] + 1}`, causal, window,
        shared: toy ? null : sharedText(kvHeads, heads[0]), row,
      };
    case 'average':
      return {
        tokens, unknown, ...keys, causal, title: `${where}, the average of its heads`,
        // The page's worker sends it; the element holds the layer.
        weights: result.summaries?.get(summaryKey('average', index)) ?? averageHeads(runOfLayers(result, [layer]), 0),
      };
    case 'rollout':
      return {
        tokens, unknown, causal,
        // The page's worker sends it (rolloutTo); the element holds every layer.
        weights: result.summaries?.get(summaryKey('rollout', index)) ?? rollout(runOfLayers(result, result.layers.slice(0, index + 1))),
        title: index === 0 ? 'Rollout of layer 1' : `Rollout of layers 1 to ${index + 1}`,
      };
    case 'lines':
      return { tokens, unknown, ...keys, weights: layer.weights, heads };
    case 'alignment':
      return alignmentData(result, index, where);
    default:
      return {
        ...layer, tokens, unknown, ...keys, title: where, numbers: toy,
        inputLabel: toy
          ? `the first ${layer.dModel} features of each token's embedding (word plus position)`
          // A cross-attention's queries come from the decoder's state; its keys and values from the encoder's output.
          : result.keyTokens ? `the decoder's state after its self-attention in layer ${index + 1}, whose keys and values come from the encoder's output`
            : index === 0 ? 'each token\'s word embedding plus its position embedding' : `the output of layer ${index}`,
      };
  }
}

/**
 * What the alignment view draws (viewData's 'alignment'): a cross-attention's source tokens
 * (`keyTokens`) above the target tokens written, each with the row of the mean of layer `index`'s
 * heads that wrote it (the decoder's row before it: row i reads the source to write token i + 1),
 * or an `error` for a result that has no cross-attention or nothing written yet.
 */
function alignmentData(result, index, where) {
  if (!result.keyTokens) {
    return { error: 'The alignment view draws an encoder–decoder\'s cross-attention: choose "cross" under "Attention of the model".' };
  }
  const n = result.tokens.length, m = result.keyTokens.length;
  if (n < 2) return { error: 'The decoder has written nothing yet: press Translate (or Write) to see what each word it writes reads.' };
  const layer = result.layers[index];
  const weights = result.summaries?.get(summaryKey('average', index)) ?? averageHeads(runOfLayers(result, [layer]), 0);
  return {
    source: result.keyTokens, sourceUnknown: result.keyUnknown ?? [], target: result.tokens.slice(1), weights: weights.subarray(0, (n - 1) * m),
    title: `${where}: what each target word read of the source when it was written, the layer's heads averaged`,
  };
}

/** What the Why? view draws of a result (viewData's 'why'). */
function whyData(result, patch, patching, toy) {
  const why = result.why ?? null;
  const error = toy ? 'The Why? view explains what a model predicts; the toy layer predicts nothing.' : why?.error ?? null;
  return {
    tokens: result.tokens, causal: Boolean(result.causal), position: why?.position ?? null, error,
    contributions: why?.contributions ?? null, lens: why?.lens ?? null, queryKeys: result.queryKeys ?? null, patch, patching,
  };
}

/**
 * Which heads query head `head` shares its keys and values with (grouped-query attention), as a
 * sentence, or null when it has a key/value head of its own.
 */
export function sharedText(kvHeads, head) {
  if (!kvHeads) return null;
  const kv = kvHeads[head];
  const others = kvHeads.flatMap((k, h) => (k === kv && h !== head ? [h + 1] : []));
  if (others.length === 0) return null;
  const list = others.length === 1 ? `${others[0]}` : `${others.slice(0, -1).join(', ')} and ${others[others.length - 1]}`;
  return `Head ${head + 1} shares key/value head ${kv + 1} with head${others.length === 1 ? '' : 's'} ${list}: the same keys and values, ` +
    'each head with queries of its own (grouped-query attention).';
}

/**
 * What a truncated result ({ tokens, closing }) shows, as a note above the view: a run whose
 * tokenizer ends texts with a closing token ([SEP], </s>; `closing` true) keeps it, a text without
 * one simply stops. `capped`: the limit was the page's (it runs at most 1024 tokens of a model that
 * takes more), not the model's. It gives no count of the text's tokens: a long text is tokenized
 * only as far as the run keeps (its totalTokens is a lower bound).
 */
export function truncationNote({ tokens, closing }, capped = false) {
  const n = tokens.length;
  const kept = closing ? `${n - 1} and the closing ${tokens[n - 1]}` : `${n}`;
  const limit = capped ? `the ${n} tokens this page runs at once` : `the model's ${n} tokens`;
  return `This text is longer than ${limit}: only the first ${kept} are shown.`;
}
