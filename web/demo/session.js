// @ts-check
// The session: the one module that talks to the page's worker. It keeps two slices of the store,
// each written by its reducer here: `session` (the model on screen and the one loading, the run
// in flight, what stopped or failed, the probe-set measure, the writing, the Why? view's patch
// sweep) and `result` (what the
// worker answered for the current inputs, grown a token at a time while the model writes, and
// the probe-set measures per model). After every change it
// asks needed() what the page lacks and sends that, one run at a time; an answer that no longer
// fits the inputs is dropped, and the next change asks again: latest wins, here only. Where the
// page is cross-origin isolated, a run the inputs have moved past is not even finished: the
// worker stops it after the layer it is in (the interrupt, shared memory both sides see).
// The worker's messages are typed in worker/messages.js; the time limit and Cancel are
// worker/limited-worker.js's.
import { patched } from './state/store.js';
import { BUILTIN_MODEL, ModelName, modelName, modelRevision, modelSource } from './state/model-choice.js';
import { answerFits, canWrite, inputsKey, keyWith, modelToLoad, needed, queryKeysKey, whyKey } from './state/needed.js';
import { shownStack, stackLayers } from './state/settings.js';
import { grownRun, promptRun } from './state/writing.js';
import { patchKey } from './state/why.js';
import { summaryKey } from '../src/views/view-data.js';
import { LimitedWorker, Stopped, timeLimit } from './worker/limited-worker.js';

/** @typedef {import('./worker/messages.js').ModelInfo} ModelInfo */
/** @typedef {import('./worker/messages.js').RunAnswer} RunAnswer */

const SLOW = 300; // ms before a run in flight is reported and can be cancelled (long pastes take a second)
// A run's time limit grows with the model's work on top of the tokenizer's allowance, at an
// assumed floor of 1 GFLOP/s (a 2-core VM measures several): BERT-base at 512 tokens is about
// 100 GFLOP, so an honest run there may take tens of seconds and must not be stopped as a hang.
const FLOPS_PER_MS = 1e6;
// A load may take minutes, but not 30 s without a message from the worker: a download that sends
// nothing, or a file the worker cannot finish reading, is taken as hung (the longest honest silence
// known, parsing and checking Gemma 3's 33 MB tokenizer.json, took 2.4–2.8 s in Node here). A writing
// may not fall silent for longer than its prompt's run may take (runLimit).
const LOAD_SILENCE_MS = 30000;

const SESSION = Object.freeze({
  hubUrl: undefined, // where Hub ids are fetched from: the page's ?hub=, for tests against a fake Hub
  info: null, // ModelInfo of the model on screen, once the worker is ready
  startError: '', // why the worker could not start
  model: BUILTIN_MODEL, // the model on screen (a model-choice.js choice)
  models: 0, // counts the models made ready: a result belongs to one
  loading: null, // { loadId, choice, started, progress }: a model loading while `model` stays on screen
  loadPhase: null, // how the last load went: 'loading' | 'ready' | 'error' | 'cancelled'
  loadMessage: '', // what the model picker says about it
  loadMs: null, // how long the last load took
  inFlight: null, // { id, key, characters, slow }: the run the worker is computing
  stopped: null, // { key, reason: 'time' | 'cancel', ms, limit, characters }: the run stopped for these inputs
  failed: null, // { key, message }: the run that failed for these inputs
  measuring: null, // { measureId, key, done, total }: the probe-set measure in the worker
  measureFailed: '', // why the last measure stopped
  writing: null, // { writeId, started, prefillMs, stepMs, count, stopping }: the model writing after the sentence
  wrote: null, // { key, reason, prefillMs, stepMs, count, message }: how the last writing went, for the inputs of `key`
  patching: null, // { patchId, key, done, total }: the Why? view's head sweep in the worker, for patchKey `key`
  patchFailed: null, // { key, message }: why the last sweep for patchKey `key` stopped
});

/** The session slice's reducer. */
export function session(slice = SESSION, action, state) {
  switch (action.type) {
    case 'start':
      return patched(slice, { hubUrl: action.hubUrl });
    case 'start-failed':
      return patched(slice, { startError: action.message });
    case 'ready': {
      const fallback = action.info.fallback;
      const model = fallback ? BUILTIN_MODEL : slice.model;
      return patched(slice, {
        info: action.info, model, models: slice.models + 1, measuring: null, measureFailed: '',
        // Only after a restart: the model on screen could not be loaded again.
        loadMessage: fallback ? `${ModelName(slice.model)} could not be loaded again, so the built-in model is back: ${fallback}` : slice.loadMessage,
      });
    }
    case 'restarted': // a stopped run replaced the worker, and what it was doing besides
      return patched(slice, {
        measuring: null, writing: null, patching: null,
        patchFailed: slice.patching ? Object.freeze({ key: slice.patching.key, message: 'The sweep stopped when the page restarted its worker: patch again.' }) : slice.patchFailed,
        measureFailed: slice.measuring ? 'The measure stopped when the page restarted its worker: measure again.' : slice.measureFailed,
      });
    case 'write-start':
      return patched(slice, { writing: Object.freeze({ writeId: action.writeId, started: action.started, prefillMs: null, stepMs: 0, count: 0, stopping: false }) });
    case 'write-step': {
      const w = slice.writing;
      if (action.writeId !== w?.writeId) return slice;
      return patched(slice, { writing: Object.freeze({ ...w, prefillMs: action.prefillMs, stepMs: w.stepMs + (action.step.elapsedMs ?? 0), count: w.count + 1 }) });
    }
    case 'write-stop':
      return slice.writing ? patched(slice, { writing: Object.freeze({ ...slice.writing, stopping: true }) }) : slice;
    case 'write-done': {
      const w = slice.writing;
      if (action.writeId !== w?.writeId) return slice;
      const { reason, message } = action;
      return patched(slice, { writing: null, wrote: Object.freeze({ key: inputsKey(state), reason, message, prefillMs: action.prefillMs, stepMs: w.stepMs, count: w.count }) });
    }
    case 'restarted-ready': // the same model in the fresh worker
      return patched(slice, { info: action.info });
    case 'load-started':
      return patched(slice, {
        loading: Object.freeze({ loadId: action.loadId, choice: action.choice, started: action.started, progress: null }), loadPhase: 'loading', loadMessage: '',
      });
    case 'load-progress':
      return slice.loading?.loadId === action.loadId ? patched(slice, { loading: Object.freeze({ ...slice.loading, progress: action.progress }) }) : slice;
    case 'loaded':
      if (slice.loading?.loadId !== action.loadId) return slice;
      return patched(slice, {
        info: action.info, model: action.choice, models: slice.models + 1, loading: null, loadPhase: 'ready', loadMessage: '',
        loadMs: Math.round(action.ms), measuring: null, measureFailed: '', writing: null,
      });
    case 'load-failed': {
      const loading = slice.loading;
      if (loading?.loadId !== action.loadId) return slice;
      const kept = `${ModelName(slice.model)} is still loaded.`;
      return patched(slice, {
        loading: null, loadPhase: action.aborted ? 'cancelled' : 'error',
        loadMessage: action.aborted ? `Loading ${modelName(loading.choice)} was cancelled. ${kept}`
          : `Could not load ${modelName(loading.choice)}: ${action.message.replace(/\.$/, '')}. ${kept}`,
      });
    }
    case 'sentence': // the reader typed: a run that stopped or failed may be tried again, even on the same text
      return patched(slice, { stopped: null, failed: null, writing: action.text === state.settings.sentence ? slice.writing : null });
    case 'pick-model':
      return patched(slice, { writing: null, loadMessage: '' });
    case 'chat': // what the writing was written after, or with, changed: it stops (the session tells the worker)
    case 'url':
    case 'mode':
    case 'ablate':
    case 'toggle-head':
    case 'ablation':
      return patched(slice, { writing: null });
    case 'sent': // a run for other inputs: what stopped or failed before may be asked again, once typed again
      return patched(slice, {
        inFlight: Object.freeze({ id: action.id, key: action.asked.key, characters: action.asked.text.length, slow: false }), stopped: null, failed: null,
      });
    case 'slow':
      return slice.inFlight?.id === action.id ? patched(slice, { inFlight: Object.freeze({ ...slice.inFlight, slow: true }) }) : slice;
    case 'answered':
      if (action.answer.type === 'error' && action.answer.interrupted) return patched(slice, { inFlight: null }); // for inputs gone by
      if (action.answer.type === 'error') {
        return patched(slice, { inFlight: null, failed: Object.freeze({ key: action.asked.key, message: `That sentence could not be run: ${action.answer.message}` }) });
      }
      return patched(slice, { inFlight: null });
    case 'stopped': {
      const { key, text } = action.asked;
      return patched(slice, { inFlight: null, stopped: Object.freeze({ key, reason: action.reason, ms: action.ms, limit: action.limit, characters: text.length }) });
    }
    case 'run-failed': // the worker itself failed
      return patched(slice, { inFlight: null, failed: Object.freeze({ key: action.asked.key, message: action.message }) });
    case 'patch-started':
      return patched(slice, { patching: Object.freeze({ patchId: action.patchId, key: action.key, done: 0, total: 0 }), patchFailed: null });
    case 'patch-progress':
      if (slice.patching?.patchId !== action.patchId) return slice;
      return patched(slice, { patching: Object.freeze({ ...slice.patching, done: action.done, total: action.total }) });
    case 'patched':
      return slice.patching?.patchId === action.patchId ? patched(slice, { patching: null }) : slice;
    case 'patch-failed':
      if (slice.patching?.patchId !== action.patchId) return slice;
      return patched(slice, {
        patching: null, patchFailed: Object.freeze({ key: slice.patching.key, message: action.aborted ? 'Stopped.' : `Patching failed: ${action.message}` }),
      });
    case 'measure-started':
      return patched(slice, { measuring: Object.freeze({ measureId: action.measureId, key: modelKey(state), done: 0, total: 0 }), measureFailed: '' });
    case 'measure-progress':
      if (slice.measuring?.measureId !== action.measureId) return slice;
      return patched(slice, { measuring: Object.freeze({ ...slice.measuring, done: action.done, total: action.total }) });
    case 'measured':
      return slice.measuring?.measureId === action.measureId ? patched(slice, { measuring: null }) : slice;
    case 'measure-failed':
      if (slice.measuring?.measureId !== action.measureId) return slice;
      return patched(slice, { measuring: null, measureFailed: action.aborted ? 'Cancelled.' : `The measure failed: ${action.message}` });
    default:
      return slice;
  }
}

const RESULT = Object.freeze({
  // { key, tokens, unknown, truncated, totalTokens, causal, hasLmHead, kvHeads, windows, layers (those
  // asked for, by index), overview, summaries (summaryKey → matrix), traced, roles, changes, ablated,
  // predictions (masked LM), nextTokens (causal LM: position → list), summary, promptLength (the tokens
  // before the written ones), steps (the written tokens' strip, or null), partial (grown by a writing:
  // its roles, overview and other layers are still to ask) } for the inputs of `key`, or null; and,
  // grown by a writing, its prompt's layers and each step's rows (writing.js)
  run: null,
  measured: new Map(), // modelKey → measureHeadRoles' result (with relationMeanings)
});

/** The result slice's reducer: the cache of what the worker answered. */
export function result(slice = RESULT, action, state) {
  switch (action.type) {
    case 'answered':
      if (action.answer.type !== 'result') return dropStreamed(slice, action.asked);
      if (!answerFits(state, action.asked)) return slice;
      return patched(slice, { run: merged(slice.run, action.answer, action.asked, state.session.info) });
    case 'run-failed':
      return dropStreamed(slice, action.asked);
    case 'run-layers': // layers of the run in flight, as they were computed
      if (!answerFits(state, action.asked)) return slice;
      return patched(slice, { run: withLayers(slice.run, action.layers, action.asked, state.session.info) });
    case 'stopped': // the view of a run that was stopped goes, its sentence stays
      return answerFits(state, action.asked) ? patched(slice, { run: null }) : slice;
    case 'ready':
    case 'loaded':
      return patched(slice, { run: null });
    case 'write-start': { // the run on screen, cut to its prompt, grows a token at a time
      const run = slice.run;
      return run ? patched(slice, { run: promptRun(run, run.tokens.length - state.settings.written.length, keyWith(state, [])) }) : slice;
    }
    case 'write-step': {
      if (action.writeId !== state.session.writing?.writeId || !slice.run) return slice;
      return patched(slice, { run: grownRun(slice.run, action.step, action.rows, keyWith(state, [...state.settings.written, action.step.id])) });
    }
    case 'patched': { // kept with the run it patched, while the inputs stay
      const patching = state.session.patching;
      if (patching?.patchId !== action.patchId || !slice.run || slice.run.key !== JSON.parse(patching.key)[0]) return slice;
      return patched(slice, { run: Object.freeze({ ...slice.run, patch: Object.freeze({ key: patching.key, ...action.patch }) }) });
    }
    case 'measured': {
      const measuring = state.session.measuring;
      if (measuring?.measureId !== action.measureId) return slice;
      return patched(slice, { measured: new Map(slice.measured).set(measuring.key, action.measured) });
    }
    default:
      return slice;
  }
}

/**
 * The result slice without the streamed run of `asked`, which failed or was interrupted (its inputs
 * typed away from and back to): what it lacks is asked for afresh.
 */
function dropStreamed(slice, asked) {
  return slice.run?.streamed && slice.run.key === asked.key ? patched(slice, { run: null }) : slice;
}

/**
 * `run` with `answer` (to `asked`) added: a run for new inputs starts afresh, with the shape of
 * the model's attention from its `info` (ModelInfo); an answer for the same inputs adds a layer's
 * trace or predictions to what is there.
 * @param {RunAnswer} answer
 */
export function merged(run, answer, asked, info) {
  const fresh = run?.key !== asked.key;
  // The same inputs keep their token arrays, so the token list keeps its buttons (and their focus).
  const r = fresh ? newRun(answer, asked, info) : { ...run, layers: [...run.layers], nextTokens: new Map(run.nextTokens) };
  // After a writing, or once a streamed run's layers are all in.
  if (asked.fresh && !fresh) Object.assign(r, { roles: answer.roles ?? null, alignment: answer.alignment ?? null, changes: answer.changes ?? null, ablated: answer.ablated });
  r.partial = false;
  if (answer.steps) r.steps = Object.freeze(answer.steps.map((step) => Object.freeze(step)));
  // A layer traced already holds its weights, with the rest of its matrices.
  for (const { layer, ...weights } of answer.layers ?? []) if (r.traced !== layer) r.layers[layer] = weights;
  if (answer.overview) {
    const before = r.overview?.layers ?? []; // a streamed run's thumbnails, which the answer leaves out
    r.overview = { ...answer.overview, layers: answer.overview.layers.map((l, i) => l ?? before[i]) };
  }
  if (answer.summary) r.summaries = new Map(r.summaries).set(summaryKey(answer.summary.kind, answer.summary.layer), answer.summary.weights);
  if (answer.trace) {
    const { layer, ...matrices } = answer.trace;
    // One full layer at a time: the one before goes back to its weights.
    const before = r.traced;
    if (before !== null && before !== layer && r.layers[before]) r.layers[before] = { numHeads: r.layers[before].numHeads, weights: r.layers[before].weights };
    r.layers[layer] = matrices;
    r.traced = layer;
  }
  // A causal model's, and an encoder–decoder's decoder and cross rows, predict the next token.
  if (answer.predictions && (answer.causal || asked.stack === 'decoder' || asked.stack === 'cross')) {
    for (const { position, ...list } of answer.predictions) r.nextTokens.set(position, list); // { top, now? }
  } else if (answer.predictions) r.predictions = answer.predictions;
  if (answer.why) r.why = Object.freeze({ key: whyKey(asked.why), ...answer.why });
  if (answer.queryKeys) r.queryKeys = Object.freeze({ key: queryKeysKey(asked.queryKeys), ...answer.queryKeys });
  const written = asked.written?.length ? ` (the last ${asked.written.length} written by the model)` : '';
  if (fresh || run.streamed) r.summary = `${answer.tokens.length} tokens${written}, computed in ${answer.ms.toFixed(1)} ms.`;
  r.streamed = false;
  return Object.freeze(r);
}

/**
 * A run for new inputs, from the first answer to `asked` (a RunAnswer, or a streamed layer's
 * RunLayer before it), with the shape of the model's attention from its `info` (ModelInfo).
 * nextTokens: a causal model's predictions by position, kept while the sentence stays, so
 * hovering back over a token asks the worker nothing.
 */
function newRun(answer, asked, info) {
  return {
    key: asked.key, layers: [], overview: null, summaries: new Map(), traced: null, nextTokens: new Map(),
    tokens: answer.tokens, unknown: answer.unknown, truncated: answer.truncated, totalTokens: answer.totalTokens,
    // A cross-attention's keys are other tokens (the source's); the decoder's layers are its own.
    ...answer.keyTokens ? { keyTokens: answer.keyTokens, keyUnknown: answer.keyUnknown } : {},
    numLayers: asked.toy ? 1 : info && stackLayers(info, asked.stack ?? 'encoder'), numHeads: asked.toy ? asked.toy.numHeads : info?.numHeads,
    // The toy layer's own mask, not the model's, is what its matrices show.
    causal: asked.toy ? asked.toy.causal : answer.causal, hasLmHead: answer.hasLmHead,
    kvHeads: asked.toy ? null : info?.kvHeads ?? null, windows: asked.toy ? null : info?.windows ?? null,
    roles: answer.roles ?? null, alignment: answer.alignment ?? null, changes: answer.changes ?? null, ablated: answer.ablated ?? [],
    promptLength: answer.tokens.length - (asked.written?.length ?? 0), steps: null, streamed: false,
    why: null, queryKeys: null, patch: null, // the Why? view's answers (its `why`, `queryKeys` and patch sweep), each with its key
  };
}

/**
 * `run` with layers of the run in flight for `asked` (a RunLayers), which came before its answer:
 * the first ones start a streamed run for the new inputs, which the views draw as its layers come
 * (still partial: the answer brings the rest), each with its head roles. Until the answer, what
 * the run before showed of the same model stays, as the layers still to come do: the status line,
 * the other layers' head roles and how far the switched-off heads moved each layer.
 * @param {import('./worker/messages.js').RunLayers} streamed
 */
export function withLayers(run, streamed, asked, info) {
  const same = run && run.numLayers === info.numLayers && run.numHeads === info.numHeads && !asked.toy;
  const r = run?.key === asked.key ? { ...run, layers: [...run.layers] } : {
    ...newRun({ ...streamed, causal: info.causal, hasLmHead: info.hasLmHead, ablated: asked.ablate }, asked, info),
    summary: run?.summary, roles: same ? run.roles : null, changes: same ? run.changes : null, partial: true, streamed: true,
  };
  for (const { layer, weights } of streamed.layers) if (weights && r.traced !== layer) r.layers[layer] = { numHeads: weights.length, weights };
  // Each layer's roles replace the ones the run before left, in layer then head order.
  const came = new Set(streamed.layers.map((l) => l.layer));
  r.roles = [...(r.roles ?? []).filter((role) => !came.has(role.layer)), ...streamed.layers.flatMap((l) => l.roles)]
    .sort((a, b) => a.layer - b.layer || a.head - b.head);
  if (streamed.overview) {
    r.overview = { ...streamed.overview, layers: [...r.overview?.layers ?? []] };
    for (const { layer, thumbnails } of streamed.layers) r.overview.layers[layer] = { weights: thumbnails };
  }
  return Object.freeze(r);
}

/** The key the probe-set measure is kept under: one per model (a local folder's only while it is on screen). */
export function modelKey(state) {
  const { model, hubUrl, models } = state.session;
  if (model.kind === 'hub') return `hub ${hubUrl ?? ''} ${model.id} ${model.revision ?? 'main'}`;
  return model.kind === 'builtin' ? `builtin ${model.id}` : `local ${models}`;
}

/**
 * Starts the worker (with the model the store's session names) and keeps it busy with what the
 * page needs. Returns the commands the controls give: cancel a run, a load or a measure, and
 * start a measure.
 */
export function createSession(store) {
  const { dispatch } = store;
  const counters = { run: 0, load: 0, measure: 0, write: 0, patch: 0 };
  // interrupt[0] = 1 stops the worker's run in flight; a page without shared memory has none.
  const interrupt = globalThis.crossOriginIsolated === true ? new Int32Array(new SharedArrayBuffer(4)) : null;
  let writeId = null; // the writing the worker is doing for this page
  let writeNext = false; // an encoder–decoder's Translate, waiting for its cross-attention's run to write from
  let flying = null; // { id, asked }: the run in flight, whose layers may come before its answer
  let slowTimer = 0;
  let loadWatch = null, writeWatch = null; // LimitedWorker watches of the load and the writing in the worker
  const worker = new LimitedWorker(startWorker, { limit: runLimit, onEvent, onRestart });
  worker.ready.then((info) => dispatch({ type: 'ready', info }), (error) => dispatch({ type: 'start-failed', message: error.message }));
  store.subscribe(pump);

  function startWorker() {
    const created = new Worker(new URL('./worker/worker.js', import.meta.url), { type: 'module' });
    const { model, hubUrl } = store.state.session;
    created.postMessage({ type: 'start', source: modelSource(model), hubUrl, revision: modelRevision(model), interrupt });
    return created;
  }

  function runLimit(characters) {
    const info = store.state.session.info;
    if (!info) return timeLimit(characters);
    const n = Math.min(info.maxTokens, characters + 2), d = info.dModel;
    // Per layer: the Q, K, V, output and feed-forward products (about 24·n·d²) and the n × n scores (4·n²·d).
    const flops = info.numLayers * (24 * n * d * d + 4 * n * n * d) + (info.hasLmHead ? 64 * d * info.vocabSize : 0);
    return timeLimit(characters) + Math.ceil(flops / FLOPS_PER_MS);
  }

  /**
   * After every change: stop a writing the state no longer has, load the model asked for, and run
   * what the page lacks once nothing is in flight.
   */
  function pump() {
    if (writeId !== null && store.state.session.writing?.writeId !== writeId) {
      worker.post({ type: 'cancel-write', writeId }); // its write-done ends its watch
      writeId = null;
    }
    const choice = modelToLoad(store.state);
    if (choice) load(choice);
    if (writeNext && shownStack(store.state) !== 'cross') writeNext = false; // the reader chose another attention meanwhile
    if (writeNext && canWrite(store.state)) {
      writeNext = false;
      write();
    }
    const inFlight = store.state.session.inFlight;
    // A run for inputs gone by stops; one for inputs typed back to goes on.
    if (inFlight && interrupt) Atomics.store(interrupt, 0, inFlight.key === inputsKey(store.state) ? 0 : 1);
    if (inFlight) return;
    const asked = needed(store.state);
    if (asked) send(asked);
  }

  function send(asked) {
    const id = ++counters.run;
    const { key, ...message } = asked;
    if (interrupt) Atomics.store(interrupt, 0, 0);
    dispatch({ type: 'sent', id, asked });
    flying = { id, asked };
    slowTimer = setTimeout(() => dispatch({ type: 'slow', id }), SLOW);
    const settle = (action) => {
      clearTimeout(slowTimer);
      flying = null;
      dispatch(action);
    };
    worker.run({ type: 'run', id, ...message }, asked.text.length).then(
      (answer) => settle({ type: 'answered', answer, asked }),
      (error) => settle(!(error instanceof Stopped) ? { type: 'run-failed', asked, message: error.message }
        // A run lost with a worker replaced for another task's sake is asked again of the fresh one.
        : error.reason === 'restart' ? { type: 'answered', answer: { type: 'error', interrupted: true }, asked }
          : { type: 'stopped', asked, reason: error.reason, ms: error.ms, limit: error.limit }));
  }

  function load(choice) {
    const loading = store.state.session.loading;
    if (loading) worker.post({ type: 'cancel-load', loadId: loading.loadId });
    const loadId = ++counters.load;
    dispatch({ type: 'load-started', loadId, choice, started: performance.now() });
    worker.post({ type: 'load', loadId, source: modelSource(choice), hubUrl: store.state.session.hubUrl, revision: modelRevision(choice) });
    loadWatch?.end();
    loadWatch = worker.watch(LOAD_SILENCE_MS, () => {
      loadWatch = null;
      dispatch({ type: 'load-failed', loadId, aborted: false, message: `nothing came from it for ${LOAD_SILENCE_MS / 1000} s ` +
        '(a download that stalled, or a file the page\'s worker could not finish reading), so the page restarted its worker' });
    });
  }

  /** A load's or a measure's progress and end, from the worker. */
  function onEvent(data) {
    const { loading, measuring } = store.state.session;
    switch (data.type) {
      case 'progress':
        if (loading?.loadId === data.loadId) loadWatch?.alive();
        return dispatch({ type: 'load-progress', loadId: data.loadId, progress: { file: data.file, loaded: data.loaded, total: data.total } });
      case 'loaded':
        if (loading?.loadId !== data.loadId) return undefined;
        loadWatch?.end();
        return dispatch({ type: 'loaded', loadId: data.loadId, info: data.info, choice: loading.choice, ms: performance.now() - loading.started });
      case 'load-failed':
        if (loading?.loadId === data.loadId) loadWatch?.end();
        return dispatch({ type: 'load-failed', loadId: data.loadId, aborted: data.aborted, message: data.message });
      case 'run-layers':
        return flying?.id === data.runId ? dispatch({ type: 'run-layers', layers: data, asked: flying.asked }) : undefined;
      case 'write-step':
        if (data.writeId === writeId) writeWatch?.alive();
        return dispatch({ type: 'write-step', writeId: data.writeId, step: data.step, prefillMs: data.prefillMs, rows: data.rows });
      case 'write-done':
        if (data.writeId === writeId) {
          writeId = null;
          writeWatch?.end();
        }
        return dispatch({ type: 'write-done', writeId: data.writeId, reason: data.reason, prefillMs: data.prefillMs, message: data.message });
      case 'patch-progress':
        return dispatch({ type: 'patch-progress', patchId: data.patchId, done: data.done, total: data.total });
      case 'patched':
        return dispatch({ type: 'patched', patchId: data.patchId, patch: data.patch });
      case 'patch-failed':
        return dispatch({ type: 'patch-failed', patchId: data.patchId, aborted: data.aborted, message: data.message });
      case 'roles-progress':
        return dispatch({ type: 'measure-progress', measureId: data.measureId, done: data.done, total: data.total });
      case 'roles-measured':
        return dispatch({ type: 'measured', measureId: data.measureId, measured: data.measured });
      case 'roles-failed':
        return measuring && dispatch({ type: 'measure-failed', measureId: data.measureId, aborted: data.aborted, message: data.message });
      default:
        return undefined;
    }
  }

  /**
   * A stopped run or a silent task replaced the worker: its writing went with it, and its load in
   * flight starts again, watched from when the fresh worker is ready (it loads the model on screen first).
   */
  function onRestart() {
    dispatch({ type: 'restarted' });
    writeWatch?.end();
    writeId = null;
    worker.ready.then((info) => dispatch({ type: info.fallback ? 'ready' : 'restarted-ready', info }), () => {});
    const loading = store.state.session.loading;
    if (loading) {
      const { loadId, choice } = loading;
      worker.post({ type: 'load', loadId, source: modelSource(choice), hubUrl: store.state.session.hubUrl, revision: modelRevision(choice) });
      worker.ready.then(() => loadWatch?.alive(), () => {});
    }
  }

  return {
    /** Whether a run the reader has typed past stops at once, so a run may start at each keystroke. */
    interruptible: interrupt !== null,
    /** Stops the run in flight (its worker is replaced); the sentence stays. */
    cancel: () => worker.cancel(),
    get busy() {
      return worker.busy;
    },
    cancelLoad() {
      const loading = store.state.session.loading;
      if (loading) worker.post({ type: 'cancel-load', loadId: loading.loadId });
    },
    /** Measures every head of the model on screen over the probe set. */
    measure() {
      const { info, measuring } = store.state.session;
      if (!info || measuring) return;
      const measureId = ++counters.measure;
      dispatch({ type: 'measure-started', measureId });
      worker.post({ type: 'measure-roles', measureId });
    },
    write,
    /** Stops the writing between two steps: what was written stays. */
    stopWriting() {
      writeNext = false;
      if (store.state.session.writing) dispatch({ type: 'write-stop' });
      if (writeId !== null) worker.post({ type: 'cancel-write', writeId });
    },
    /**
     * Patches every head from the sentence's run into the run of `corrupted`, for what the Why?
     * view explains; a sweep already running stops.
     */
    patch(corrupted) {
      const state = store.state;
      const { info, patching } = state.session;
      if (!info?.hasLmHead || state.settings.mode !== 'model') return;
      if (patching) worker.post({ type: 'cancel-patch', patchId: patching.patchId });
      const patchId = ++counters.patch;
      const { sentence: text, chat, written, why: { position, token, against } } = state.settings;
      dispatch({ type: 'patch-started', patchId, key: patchKey(state, corrupted) });
      worker.post({ type: 'patch', patchId, text, chat, written: [...written], corrupted, position, token, against });
    },
    cancelPatch() {
      const patching = store.state.session.patching;
      if (patching) worker.post({ type: 'cancel-patch', patchId: patching.patchId });
    },
    cancelMeasure() {
      const measuring = store.state.session.measuring;
      if (measuring) worker.post({ type: 'cancel-measure', measureId: measuring.measureId });
    },
  };

  /**
   * Writes after the sentence, from the run on screen, with the settings' options and heads. An
   * encoder–decoder writes with its cross-attention on screen: from its encoder's, the page
   * switches to it and writes once its run is there.
   */
  function write() {
    const state = store.state;
    if (!canWrite(state)) return;
    if (state.session.info.encoderDecoder && shownStack(state) === 'encoder') {
      writeNext = true;
      dispatch({ type: 'stack', value: 'cross' });
      return;
    }
    const { sentence: text, chat, write: options, ablate, ablation } = state.settings;
    const layers = state.result.run.layers.flatMap((layer, l) => (layer ? [l] : []));
    const id = ++counters.write;
    writeId = id;
    dispatch({ type: 'write-start', writeId, started: performance.now() });
    worker.post({ type: 'write', writeId, text, chat, options, ablate, ablation, layers, stack: shownStack(state) });
    // Between two of its messages a writing may take as long as its prompt's run may.
    const limit = runLimit(text.length);
    writeWatch?.end();
    writeWatch = worker.watch(limit, () => {
      writeWatch = null;
      dispatch({ type: 'write-done', writeId: id, reason: 'error', prefillMs: null,
        message: `the page's worker sent nothing for ${Math.round(limit / 1000)} s, so the page restarted it` });
    });
  }
}
