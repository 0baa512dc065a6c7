// @ts-check
// The page's Web Worker: it owns the engine, the model on screen, a model being loaded and the
// toy layer, so downloading, tokenizing and computing never block typing. It draws nothing; the
// page (session.js) decides what to ask and when. The messages both ways are typed in
// messages.js: Start, Load and CancelLoad, a RunRequest (answered by a RunAnswer or RunError, a
// streamed one's layers sent before it as RunLayers, as they are computed;
// the last run is kept, so another layer's trace or another position's predictions do not run
// the model again), MeasureRoles and CancelMeasure (runs asked meanwhile are answered between
// its steps), Write and CancelWrite (each step posted as it is made, and runs answered between
// steps too), Patch and CancelPatch (the Why? view's head sweep, worker/why.js; runs are answered
// between its slices). Arrays in answers are moved to the page, not copied. Only one layer's full trace is
// sent at a time: at 512 tokens a BERT-base's twelve would be hundreds of megabytes.
import { loadEngine } from '../../src/index.js';
import { ALL_LAYERS_BYTES, PAGE_MAX_TOKENS } from './messages.js';
import { textPrint } from '../text-print.js';
import { headRoles } from '../../src/analysis/head-roles.js';
import { crossHeadRoles } from '../../src/analysis/cross-roles.js';
import { stackRun } from '../../src/views/stack-run.js';
import { averageHeads } from '../../src/analysis/rollout.js';
import { measureHeadRoles } from '../../src/analysis/measure-roles.js';
import { likeliest } from '../../src/model/likeliest.js';
import { whyBuffers } from '../../src/views/why-data.js';
import { explainAnswer, patchHeads, queryKeysAnswer } from './why.js';
import {
  OVERVIEW_SIZE, attentionShape, layerMatrices, layerWeights, overviewBlocks, overviewOf, rolloutTo, thumbnails, tracedLayer,
} from '../../src/views/view-data.js';

const PROGRESS_EVERY = 100; // ms between progress messages: a fast disk would post thousands
const MAX_PREDICTED = 32; // [MASK] positions predicted per run: each costs a vocabulary-sized product
const TOP_K = 5;
const STREAM_GAP = 100; // ms between the messages of a streamed run's layers

const state = {
  engine: null,
  model: null,
  fallback: '', // why the start model could not load, when the built-in one stands in
  // { key, input, model, result, ablated, base }: the last run (or writing), and the same text with every head on when some are off
  last: null,
  loading: null, // { loadId, controller }
  measuring: null, // { measureId, controller }: the probe-set measure in progress
  writing: null, // { writeId, controller }: the writing in progress
  patching: null, // { patchId, controller }: the patch sweep in progress
  probes: null, // Promise of web/probes/syntax.json, fetched on the first measure
  interrupt: null, // the page's Int32Array: 1 stops the run in flight (Start)
  toy: null, // { key, attention }: the toy layer, kept while its settings stay the same
};

let started = null; // Promise: the engine and the first model are loaded

/** @param {{ data: import('./messages.js').Start | import('./messages.js').Load | import('./messages.js').CancelLoad |
 *   import('./messages.js').Write | import('./messages.js').CancelWrite |
 *   import('./messages.js').RunRequest | import('./messages.js').MeasureRoles | import('./messages.js').CancelMeasure |
 *   import('./messages.js').Patch | import('./messages.js').CancelPatch }} event */
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
  if (data.type === 'measure-roles') return measure(data);
  if (data.type === 'write') return write(data);
  if (data.type === 'cancel-write') {
    if (state.writing?.writeId === data.writeId) state.writing.controller.abort();
    return;
  }
  if (data.type === 'patch') return patch(data);
  if (data.type === 'cancel-patch') {
    if (state.patching?.patchId === data.patchId) state.patching.controller.abort();
    return;
  }
  if (data.type === 'cancel-measure') {
    if (state.measuring?.measureId === data.measureId) state.measuring.controller.abort();
    return;
  }
  answer(data);
};

/** @param {import('./messages.js').Start} start */
async function start({ source, hubUrl, revision, interrupt }) {
  state.interrupt = interrupt ?? null;
  try {
    state.engine = await loadEngine();
    if (source) {
      try {
        state.model = await state.engine.loadModel(source, { hubUrl, revision });
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

/**
 * What the page shows of a model: its sizes and kind, its special tokens, and the engine build.
 * @returns {import('./messages.js').ModelInfo}
 */
function info(model) {
  const { architecture, architectureName, causal, hasLmHead, dModel, numLayers, numHeads, numKeyValueHeads, headDim, maxTokens, vocabSize, specialTokens } = model;
  const { encoderDecoder, numDecoderLayers, taskPrefixes } = model;
  return {
    build: state.engine.build, threads: state.engine.threads, architecture, architectureName, causal, hasLmHead, dModel, numLayers, numHeads, numKeyValueHeads, headDim,
    encoderDecoder, numDecoderLayers: numDecoderLayers ?? 0, taskPrefixes: { ...taskPrefixes },
    translates: architecture === 'marian' || Object.keys(taskPrefixes ?? {}).some((task) => task.startsWith('translation')),
    ...attentionShape(model), maxTokens, vocabSize,
    maskToken: specialTokens.mask?.text ?? null, closingToken: specialTokens.closing?.text ?? null,
    chat: model.chatTemplate !== null, fallback: state.fallback,
  };
}

/** @param {import('./messages.js').Load} load */
async function load({ loadId, source, hubUrl, revision }) {
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
    const model = await state.engine.loadModel(source ?? undefined, { hubUrl, revision, onProgress, signal: controller.signal });
    // A Cancel or a newer load that came during the last await wins over the finished one.
    if (controller.signal.aborted || state.loading?.loadId !== loadId) {
      model.dispose();
      if (controller.signal.aborted) self.postMessage({ type: 'load-failed', loadId, aborted: true, message: 'cancelled' });
      return;
    }
    state.measuring?.controller.abort(); // it measures the model about to be freed
    state.patching?.controller.abort(); // it patches it
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

/**
 * The keys the last run is kept under: `input`, what was run (the text's print, as a chat or not, and the
 * ids written after it), and `key`, that with the heads switched off.
 */
function runKey(text, chat, written, ablate, ablation) {
  const input = JSON.stringify([textPrint(text), Boolean(chat), written]);
  return { input, key: JSON.stringify([input, ablate, ablate.length ? ablation : null]) };
}

/** What the model runs for a page's text: the text itself, or, in chat mode, the one user message through its template. */
const promptOf = (text, chat) => (chat ? { messages: [{ role: 'user', content: text }] } : text);

/**
 * The options a run of the page's text takes: an encoder–decoder's target is the ids written so
 * far (after its start tokens); a one-stack model's written ids follow its prompt, and its text
 * alone is cut to what the page runs.
 */
function runLimits(model, written) {
  const maxTokens = Math.min(model.maxTokens, PAGE_MAX_TOKENS);
  if (model.encoderDecoder) return { target: { ids: written }, maxTokens, interrupt: state.interrupt };
  return { ...(written.length ? { continuation: written } : { maxTokens }), interrupt: state.interrupt };
}

/** @param {import('./messages.js').RunRequest} data */
function answer(data) {
  try {
    const start = performance.now();
    const model = state.model;
    const ablate = data.toy ? [] : data.ablate ?? [];
    const ablation = data.ablation ?? 'zero';
    const written = data.toy ? [] : data.written ?? [];
    const { input, key } = runKey(data.text, data.chat, written, ablate, ablation);
    const prompt = promptOf(data.text, data.chat);
    const limits = runLimits(model, written);
    const { onLayer, streamed } = layerStream(data, model);
    const run = onLayer ? { ...limits, onLayer } : limits;
    if (state.last?.key !== key || state.last.model !== model) {
      // The run with every head on is kept when only the heads switched off change.
      const before = state.last?.model === model && state.last.input === input ? state.last : null;
      const base = before ? before.base ?? (before.ablated ? null : before.result) : null;
      state.last = null; // the old result's arrays can go before the new run allocates its own
      const result = ablate.length ? model.run(prompt, { ablate, ablation, ...run }) : base ?? model.run(prompt, run);
      state.last = { key, input, model, result, ablated: ablate.length > 0, base: ablate.length ? base : null };
    }
    // With heads off, the same text with every head on, for what changed (a writing's result comes without it).
    if (ablate.length && !state.last.base) state.last.base = model.run(prompt, limits);
    // An encoder–decoder's answers are of the attention the page shows (stack-run.js).
    const stack = model.encoderDecoder ? data.stack ?? 'encoder' : null;
    const shownOf = (r) => (r && stack ? stackRun(r, stack) : r);
    const result = shownOf(state.last.result), base = shownOf(state.last.base);
    const { tokens, unknown, truncated, totalTokens } = result;
    /** @type {import('./messages.js').RunAnswer} */
    const message = {
      type: 'result', id: data.id, tokens, unknown, truncated, totalTokens,
      causal: stack ? result.causal : model.causal ?? false, hasLmHead: stack ? result.writes : model.hasLmHead ?? false,
      ablated: result.ablated ?? [], ablation: result.ablation ?? null, ms: 0,
    };
    if (stack === 'cross') Object.assign(message, { keyTokens: result.keyTokens, keyUnknown: result.keyUnknown });
    const keys = result.keyTokens?.length ?? tokens.length;
    if (data.toy) {
      message.trace = { layer: 0, ...toyLayer(result.layerInput(0), tokens.length, data.toy) };
    } else {
      // New inputs get every layer when they fit, so other layers show at once; else the ones asked for.
      const all = data.fresh && result.numLayers * result.numHeads * tokens.length * keys * 4 <= ALL_LAYERS_BYTES;
      const layers = (all ? Array.from({ length: result.numLayers }, (_, l) => l) : data.layers).filter((l) => !streamed.weights.has(l));
      if (layers.length) message.layers = layers.map((l) => ({ layer: l, ...layerWeights(result, l) }));
      if (data.fresh) {
        // The roles read the copies about to be sent, when they are every layer, rather than copy each head again.
        const sent = all && !streamed.weights.size ? { ids: result.ids, causal: result.causal, numLayers: result.numLayers, numHeads: result.numHeads, tokens,
          keyTokens: result.keyTokens, keyIds: result.keyIds, attention: (l, h) => message.layers[l].weights[h] } : result;
        if (stack === 'cross') {
          const special = new Set([...result.ids, ...result.keyIds].filter((id) => model.token(id).special));
          const { roles, alignment, diagonal } = crossHeadRoles(sent, special);
          Object.assign(message, { roles, alignment: { columns: alignment, diagonal } });
        } else {
          message.roles = streamed.roles.length === result.numLayers ? streamed.roles.flat() : headRoles(sent);
        }
        if (base && !stack) message.changes = layerChanges(base, result);
      }
      // The model view: below OVERVIEW_SIZE tokens its thumbnails are the weights sent already, moved
      // once (or streamed: the page has them); above, pooled, those streamed left out.
      const small = Math.max(tokens.length, keys) <= OVERVIEW_SIZE;
      if (data.overview && !(streamed.weights.size && small)) {
        message.overview = all && small ? { block: 1, labels: tokens, keyLabels: result.keyTokens, layers: message.layers }
          : overviewOf(result, OVERVIEW_SIZE, streamed.thumbnails);
      }
      if (data.summary) {
        const { kind, layer } = data.summary;
        message.summary = { kind, layer, weights: kind === 'rollout' ? rolloutTo(result, layer) : averageHeads(result, layer) };
      }
      if (Number.isInteger(data.trace)) {
        const layer = Math.min(data.trace, result.numLayers - 1);
        message.trace = { layer, ...tracedLayer(result, layer, stack ? null : model.rotation(layer)) };
      }
      if (message.hasLmHead) message.predictions = predictions(result, message.causal || stack !== null, data.at, base);
      // The strip of a writing reads the decoder's rows, whichever attention is shown.
      if (data.steps) message.steps = writtenSteps(stack ? stackRun(state.last.result, 'decoder') : result, written);
      if (data.why) message.why = explainAnswer(model, result, data.text, data.why);
      if (data.queryKeys) message.queryKeys = queryKeysAnswer(result, data.queryKeys);
    }
    message.ms = performance.now() - start;
    self.postMessage(message, { transfer: transferable(message) });
  } catch (error) {
    /** @type {import('./messages.js').RunError} */
    const failed = { type: 'error', id: data.id, message: error.message, interrupted: error?.name === 'AbortError' };
    self.postMessage(failed);
  }
}

/**
 * run()'s onLayer for a fresh run the page streams (RunRequest.stream), and what it did
 * (`streamed`: the layers posted with their weights, those posted with their thumbnails, and every
 * layer's head roles). It posts, as RunLayers, each layer's weights when every layer goes to the
 * page (they fit in ALL_LAYERS_BYTES), and its model view thumbnails when the page asks for them
 * pooled (past OVERVIEW_SIZE tokens), with the layer's head roles, as they are computed while the
 * next ones run: the first layer at once, then those done since, at most every STREAM_GAP ms, as
 * each message redraws the page. The answer brings the rest.
 */
function layerStream(data, model) {
  const streamed = { weights: new Set(), thumbnails: new Set(), roles: [] };
  // An encoder–decoder's run has no onLayer: its three attentions come together.
  if (!data.stream || !data.fresh || data.toy || model.encoderDecoder) return { onLayer: undefined, streamed };
  let done = [], posted = -Infinity;
  /** @param {import('../../src/model/model.js').LayerDone} layerDone */
  const onLayer = ({ layer, ids, tokens, unknown, truncated, totalTokens, attention }) => {
    const n = tokens.length;
    const whole = model.numLayers * model.numHeads * n ** 2 * 4 <= ALL_LAYERS_BYTES;
    const pooled = data.overview && n > OVERVIEW_SIZE;
    if (!whole && !pooled) return;
    const heads = Array.from({ length: model.numHeads }, (_, h) => attention(h));
    const { block, labels } = overviewBlocks(tokens);
    // The layer's roles, read from the copies about to be sent (as one layer, renumbered).
    const roles = headRoles({ ids, tokens, causal: model.causal, numLayers: 1, numHeads: model.numHeads, attention: (_, h) => heads[h] })
      .map((role) => ({ ...role, layer }));
    streamed.roles.push(roles);
    done.push({ layer, roles, ...(whole ? { weights: heads } : {}), ...(pooled ? { thumbnails: thumbnails(heads, n, block) } : {}) });
    if (performance.now() - posted < STREAM_GAP || layer === model.numLayers - 1) return;
    /** @type {import('./messages.js').RunLayers} */
    const message = { type: 'run-layers', runId: data.id, layers: done, tokens, unknown, truncated, totalTokens, ...(pooled ? { overview: { block, labels } } : {}) };
    const arrays = done.flatMap((l) => [...l.weights ?? [], ...l.thumbnails ?? []]);
    self.postMessage(message, { transfer: [...new Set(arrays.map((a) => a.buffer))] });
    for (const l of done) {
      if (l.weights) streamed.weights.add(l.layer);
      if (l.thumbnails) streamed.thumbnails.add(l.layer);
    }
    [done, posted] = [[], performance.now()];
  };
  return { onLayer, streamed };
}

/**
 * Measures every head of the model on screen over the probe set, once at a time: a newer request
 * stops the older one.
 */
/** @param {import('./messages.js').MeasureRoles} measure */
async function measure({ measureId }) {
  state.measuring?.controller.abort();
  const controller = new AbortController();
  state.measuring = { measureId, controller };
  const onProgress = progressPoster(({ done, total }) => ({ type: 'roles-progress', measureId, done, total }));
  try {
    state.probes ??= fetch(new URL('../../probes/syntax.json', import.meta.url)).then((response) => {
      if (!response.ok) throw new Error(`the probe set could not be fetched (HTTP ${response.status})`);
      return response.json();
    });
    const probes = await state.probes.catch((error) => {
      state.probes = null; // the next measure tries again
      throw error;
    });
    controller.signal.throwIfAborted();
    const measured = await measureHeadRoles(state.model, { probes, onProgress, signal: controller.signal });
    self.postMessage({ type: 'roles-measured', measureId, measured: { ...measured, relationMeanings: probes.relations } });
  } catch (error) {
    const aborted = error?.name === 'AbortError';
    self.postMessage({ type: 'roles-failed', measureId, aborted, message: error?.message ?? String(error) });
  } finally {
    if (state.measuring?.measureId === measureId) state.measuring = null;
  }
}

/**
 * An onProgress({ done, total }) that posts message(progress) at most every PROGRESS_EVERY ms, and
 * always the last one.
 */
function progressPoster(message) {
  let last = 0;
  return (progress) => {
    const now = performance.now();
    if (now - last < PROGRESS_EVERY && progress.done !== progress.total) return;
    last = now;
    self.postMessage(message(progress));
  };
}

/**
 * How far each layer's output moved when heads were switched off: 1 − the cosine similarity of
 * each token's vector in `base` (every head on) and in `result`, averaged over the tokens. A
 * layer's output is the next layer's input, and the last layer's is the final hidden state.
 */
function layerChanges(base, result) {
  const n = result.tokens.length, d = result.dModel;
  const output = (r, l) => (l + 1 < r.numLayers ? r.layerInput(l + 1) : r.hidden);
  return Array.from({ length: result.numLayers }, (_, l) => {
    const a = output(base, l), b = output(result, l);
    let total = 0;
    for (let i = 0; i < n; i++) {
      let dot = 0, aa = 0, bb = 0;
      for (let k = i * d; k < (i + 1) * d; k++) {
        dot += a[k] * b[k];
        aa += a[k] * a[k];
        bb += b[k] * b[k];
      }
      total += aa > 0 && bb > 0 ? 1 - dot / Math.sqrt(aa * bb) : aa === bb ? 0 : 1;
    }
    return total / n;
  });
}

/**
 * The LM head's top tokens: a causal model's at the last position and at the chosen one `at`
 * (what it expects next); a masked model's at each [MASK] / <mask> the user typed. With `base`
 * (the same text with every head on, when some are off) the lists are base's top tokens, each
 * with its probability there (`before`) and in `result` (`probability`), and `now` holds
 * result's own top tokens.
 */
function predictions(result, causal, at, base = null) {
  const n = result.tokens.length;
  let positions;
  if (causal) {
    positions = [n - 1];
    if (Number.isInteger(at) && at >= 0 && at < n - 1) positions.unshift(at);
  } else {
    const mask = state.model.specialTokens.mask?.id;
    positions = [...result.ids].flatMap((id, i) => (id === mask ? [i] : [])).slice(0, MAX_PREDICTED);
  }
  if (!base) return positions.map((position) => ({ position, top: result.predictions(position, TOP_K) }));
  return positions.map((position) => {
    const after = likeliestAt(result, position);
    const top = base.predictions(position, TOP_K).map(({ token, id, probability }) => ({ token, id, before: probability, probability: after.probability(id) }));
    return { position, top, now: after.top };
  });
}

/** The softmax of `result`'s logits at `position` (one product with the vocabulary): probability(id) and the TOP_K likeliest. */
function likeliestAt(result, position) {
  return likeliest(result.logits(position), TOP_K, (id) => state.model.token(id).text);
}

/**
 * The strip of a writing, from its result: each written token with the model's probability for it
 * and its likeliest alternatives, at the position before it, as the writing's steps gave them.
 */
function writtenSteps(result, written) {
  const first = result.tokens.length - written.length;
  return written.map((id, i) => {
    const position = first + i;
    const before = likeliestAt(result, position - 1);
    return { index: i, position, id, token: result.tokens[position], probability: before.probability(id), alternatives: before.top };
  });
}

/**
 * Writes after the page's text (model.generate), posting each step as it is made with the new
 * query's rows of the layers the page holds, then how it ended. The result, over prompt and
 * output, becomes the last run, so the page's next questions about the written text are answered
 * from it. A newer write or a CancelWrite stops it between two steps; what was written stays.
 * @param {import('./messages.js').Write} data
 */
async function write({ writeId, text, chat, options, ablate, ablation, layers, stack = 'encoder' }) {
  state.writing?.controller.abort();
  const controller = new AbortController();
  state.writing = { writeId, controller };
  const model = state.model;
  let writing = null, failure = null, written = 0;
  try {
    writing = model.generate(promptOf(text, chat), { ...options, ablate, ablation, signal: controller.signal });
    for await (const step of writing) {
      written++;
      const { index, position, id, token, probability, alternatives, elapsedMs } = step;
      // An encoder–decoder's rows are of the attention on screen: the decoder's own, or its cross-attention's.
      const row = stack === 'cross' ? (l, h) => step.crossAttention(l, h) : (l, h) => step.attention(l, h);
      const rows = layers.map((layer) => ({ layer, weights: Array.from({ length: model.numHeads }, (_, h) => row(layer, h)) }));
      /** @type {import('./messages.js').WriteStep} */
      const message = { type: 'write-step', writeId, step: { index, position, id, token, probability, alternatives, elapsedMs }, prefillMs: writing.prefillMs, rows };
      self.postMessage(message, { transfer: rows.flatMap((r) => r.weights.map((w) => w.buffer)) });
    }
  } catch (error) {
    if (error?.name !== 'AbortError') failure = error;
  }
  const result = writing ? await writing.result.catch((error) => { failure ??= error; return null; }) : null;
  if (result && state.model === model) {
    const all = model.encoderDecoder ? result.targetIds : result.ids;
    const ids = Array.from(all.slice(all.length - written));
    state.last = { ...runKey(text, chat, ids, ablate, ablation), model, result, ablated: ablate.length > 0, base: null };
  }
  if (state.writing?.writeId === writeId) state.writing = null;
  /** @type {import('./messages.js').WriteDone} */
  const done = { type: 'write-done', writeId, reason: writing?.stopReason ?? 'error', prefillMs: writing?.prefillMs ?? null, message: failure ? failure.message ?? String(failure) : '' };
  self.postMessage(done);
}

/**
 * The head sweep of a Patch over the run of its text (the last run, when it is that text's) and
 * the run of its corrupted twin, posting progress at most every PROGRESS_EVERY ms. A newer Patch
 * or a CancelPatch stops it between two runs.
 * @param {import('./messages.js').Patch} data
 */
async function patch(data) {
  const { patchId } = data;
  state.patching?.controller.abort();
  const controller = new AbortController();
  state.patching = { patchId, controller };
  const onProgress = progressPoster(({ done, total }) => ({ type: 'patch-progress', patchId, done, total }));
  try {
    const model = state.model;
    const written = data.written ?? [];
    const limits = written.length ? { continuation: written } : { maxTokens: Math.min(model.maxTokens, PAGE_MAX_TOKENS) };
    const { input } = runKey(data.text, data.chat, written, [], 'zero');
    const clean = state.last?.model === model && state.last.input === input ? state.last.result : model.run(promptOf(data.text, data.chat), limits);
    const corrupted = model.run(promptOf(data.corrupted, data.chat), limits);
    const patched = await patchHeads(model, clean, corrupted, data, { onProgress, signal: controller.signal });
    self.postMessage({ type: 'patched', patchId, patch: patched }, { transfer: patched.values.map((v) => v.buffer) });
  } catch (error) {
    const aborted = error?.name === 'AbortError';
    self.postMessage({ type: 'patch-failed', patchId, aborted, message: error?.message ?? String(error) });
  } finally {
    if (state.patching?.patchId === patchId) state.patching = null;
  }
}

/**
 * The toy layer: a seeded random attention layer of the user's size, reading the first dModel
 * features of each token's embedding (the model's layer-1 input), so its rows are the sentence.
 */
function toyLayer(embeddings, n, { dModel, numHeads, numKeyValueHeads, causal, seed }) {
  const width = state.model.dModel;
  if (dModel > width) throw new RangeError(`the toy layer's d_model must be at most ${width}, got ${dModel}`);
  const key = `${dModel}/${numHeads}/${numKeyValueHeads}/${causal}/${seed}`;
  if (state.toy?.key !== key) {
    const attention = state.engine.createAttention({ dModel, numHeads, numKeyValueHeads, causal, seed });
    state.toy?.attention.dispose();
    state.toy = { key, attention };
  }
  const x = new Float32Array(n * dModel); // (n, dModel)
  for (let i = 0; i < n; i++) x.set(embeddings.subarray(i * width, i * width + dModel), i * dModel);
  return layerMatrices(state.toy.attention.forward(x, n), x);
}

/** Every ArrayBuffer of an answer, once each (a buffer listed twice cannot be transferred). */
/** @param {{ layers?: { weights: Float32Array[] }[], overview?: { layers: { weights: Float32Array[] }[] }, summary?: { weights: Float32Array },
 *   trace?: any, why?: { contributions?: any }, queryKeys?: any }} answer */
function transferable({ layers = [], overview, summary, trace, why, queryKeys }) {
  const arrays = [...layers, ...overview?.layers ?? []].flatMap((l) => l?.weights ?? []);
  if (summary) arrays.push(summary.weights);
  if (trace) {
    const t = trace;
    arrays.push(t.input, ...t.queries, ...t.keys, ...t.values, ...t.weights, ...t.headOutputs, t.concat, t.output,
      ...t.queriesBeforeRotation ?? [], ...t.keysBeforeRotation ?? []);
  }
  return [...new Set([...arrays.map((a) => a.buffer), ...whyBuffers({ contributions: why?.contributions, queryKeys })])];
}
