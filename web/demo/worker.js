// The page's Web Worker: it owns the engine, the model on screen, a model being loaded and the
// toy layer, so downloading, tokenizing and computing never block typing. It draws nothing; the
// page decides what to ask and when.
// - { type: 'start', source, hubUrl } (first message): loads the engine and that model (the
//   built-in one when source is null, or when that model can no longer load), then posts
//   { type: 'ready', info }.
// - { type: 'load', loadId, source, hubUrl } loads another model while the current one keeps
//   answering, posting { type: 'progress', loadId, file, loaded, total } as bytes arrive, then
//   { type: 'loaded', loadId, info } (the old model is freed) or { type: 'load-failed', loadId,
//   message, aborted }. { type: 'cancel-load', loadId } aborts it.
// - { id, text, toy, weights, trace, at } runs the text (the last run is kept, so asking for
//   another layer's trace or another position's predictions does not run the model again) and
//   answers with what was asked: every layer's attention weights, one layer's full trace (one
//   layer only: at 512 tokens a BERT-base's twelve full traces would be hundreds of megabytes),
//   and the LM head's predictions. Arrays are moved to the page, not copied.
import { loadEngine } from '../src/index.js';
import { attentionLayers, layerMatrices, tracedLayer } from '../src/views/view-data.js';

const PROGRESS_EVERY = 100; // ms between progress messages: a fast disk would post thousands
const MAX_PREDICTED = 32; // [MASK] positions predicted per run: each costs a vocabulary-sized product
const TOP_K = 5;

const state = {
  engine: null,
  model: null,
  fallback: '', // why the start model could not load, when the built-in one stands in
  last: null, // { text, model, result }: the last run
  loading: null, // { loadId, controller }
  toy: null, // { key, attention }: the toy layer, kept while its settings stay the same
};

let started = null; // Promise: the engine and the first model are loaded

self.onmessage = async ({ data }) => {
  if (data.type === 'start') {
    started ??= start(data);
    return;
  }
  await started;
  if (data.type === 'load') return load(data);
  if (data.type === 'cancel-load') {
    if (state.loading?.loadId === data.loadId) state.loading.controller.abort();
    return;
  }
  answer(data);
};

async function start({ source, hubUrl }) {
  try {
    state.engine = await loadEngine();
    if (source) {
      try {
        state.model = await state.engine.loadModel(source, { hubUrl });
      } catch (error) {
        state.fallback = error.message;
      }
    }
    state.model ??= await state.engine.loadModel();
    self.postMessage({ type: 'ready', info: info(state.model) });
  } catch (error) {
    self.postMessage({ type: 'error', message: `The engine or the model failed to load: ${error.message}` });
  }
}

/** What the page shows of a model: its sizes and kind, and the engine build. */
function info(model) {
  const { architecture = 'bert', causal = false, hasLmHead = false, dModel, numLayers, numHeads, maxTokens, vocabSize } = model;
  return {
    simd: state.engine.simd, architecture, causal, hasLmHead, dModel, numLayers, numHeads, maxTokens, vocabSize,
    fallback: state.fallback,
  };
}

async function load({ loadId, source, hubUrl }) {
  state.loading?.controller.abort(); // the page asks for one load at a time; a newer one wins
  const controller = new AbortController();
  state.loading = { loadId, controller };
  let last = 0;
  const onProgress = ({ file, loaded, total }) => {
    const now = performance.now();
    if (now - last < PROGRESS_EVERY && loaded !== total) return;
    last = now;
    self.postMessage({ type: 'progress', loadId, file, loaded, total: total ?? null });
  };
  try {
    const model = await state.engine.loadModel(source ?? undefined, { hubUrl, onProgress, signal: controller.signal });
    // A Cancel or a newer load that came during the last await wins over the finished one.
    if (controller.signal.aborted || state.loading?.loadId !== loadId) {
      model.dispose();
      if (controller.signal.aborted) self.postMessage({ type: 'load-failed', loadId, aborted: true, message: 'cancelled' });
      return;
    }
    state.model?.dispose();
    state.model = model;
    state.last = null;
    state.fallback = '';
    self.postMessage({ type: 'loaded', loadId, info: info(model) });
  } catch (error) {
    const aborted = error?.name === 'AbortError';
    self.postMessage({ type: 'load-failed', loadId, aborted, message: error?.message ?? String(error) });
  } finally {
    if (state.loading?.loadId === loadId) state.loading = null;
  }
}

function answer(data) {
  try {
    const start = performance.now();
    const model = state.model;
    if (state.last?.text !== data.text || state.last.model !== model) {
      state.last = null; // the old result's arrays can go before the new run allocates its own
      state.last = { text: data.text, model, result: model.run(data.text) };
    }
    const { result } = state.last;
    const { tokens, unknown, truncated, totalTokens } = result;
    const message = {
      type: 'result', id: data.id, tokens, unknown, truncated, totalTokens,
      causal: model.causal ?? false, hasLmHead: model.hasLmHead ?? false,
    };
    if (data.toy) {
      message.trace = { layer: 0, ...toyLayer(result.layerInput(0), tokens.length, data.toy) };
    } else {
      if (data.weights) message.layers = attentionLayers(result);
      if (Number.isInteger(data.trace)) {
        const layer = Math.min(data.trace, result.layers - 1);
        message.trace = { layer, ...tracedLayer(result, layer) };
      }
      if (message.hasLmHead) message.predictions = predictions(result, message.causal, data.at);
    }
    message.ms = performance.now() - start;
    self.postMessage(message, transferable(message));
  } catch (error) {
    self.postMessage({ type: 'error', id: data.id, message: error.message });
  }
}

/**
 * The LM head's top tokens: a causal model's at the last position and at the chosen one `at`
 * (what it expects next); a masked model's at each [MASK] / <mask> the user typed.
 */
function predictions(result, causal, at) {
  const n = result.tokens.length;
  let positions;
  if (causal) {
    positions = [n - 1];
    if (Number.isInteger(at) && at >= 0 && at < n - 1) positions.unshift(at);
  } else {
    positions = result.tokens.flatMap((token, i) => (isMask(token) ? [i] : [])).slice(0, MAX_PREDICTED);
  }
  return positions.map((position) => ({ position, top: result.predictions(position, TOP_K) }));
}

/** A token label (the text as typed) that is a masked-LM's mask token. */
function isMask(token) {
  const text = token.trim();
  return text === '[MASK]' || text === '<mask>';
}

/**
 * The toy layer: a seeded random attention layer of the user's size, reading the first dModel
 * features of each token's embedding (the model's layer-1 input), so its rows are the sentence.
 */
function toyLayer(embeddings, n, { dModel, numHeads, causal, seed }) {
  const width = state.model.dModel;
  if (dModel > width) throw new RangeError(`the toy layer's d_model must be at most ${width}, got ${dModel}`);
  const key = `${dModel}/${numHeads}/${causal}/${seed}`;
  if (state.toy?.key !== key) {
    const attention = state.engine.createAttention({ dModel, numHeads, causal, seed });
    state.toy?.attention.dispose();
    state.toy = { key, attention };
  }
  const x = new Float32Array(n * dModel); // (n, dModel)
  for (let i = 0; i < n; i++) x.set(embeddings.subarray(i * width, i * width + dModel), i * dModel);
  return layerMatrices(state.toy.attention.forward(x, n), x);
}

/** Every ArrayBuffer of an answer, once each (a buffer listed twice cannot be transferred). */
function transferable({ layers = [], trace }) {
  const arrays = layers.flatMap((l) => l.weights);
  if (trace) {
    const t = trace;
    arrays.push(t.input, ...t.queries, ...t.keys, ...t.values, ...t.weights, ...t.headOutputs, t.concat, t.output);
  }
  return [...new Set(arrays.map((a) => a.buffer))];
}
