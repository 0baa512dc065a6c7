// The page's controller: one state object, the controls that change it, the worker that computes,
// and the one view on screen. It asks the worker for a new result when the sentence or the toy
// settings change (debounced, never more than one request in flight) and redraws the view
// otherwise. The drawing itself is web/src/views; the computing is worker.js, behind a time limit
// and a Cancel button (limited-worker.js). The URL's hash holds the state both ways: the page
// keeps it up to date, and a hash changed by a link or by hand is applied as a new state.
// The model on screen can be changed (model-picker.js): the worker loads the new one while the old
// one keeps answering, and the page switches when it is ready. Results come in parts: every
// layer's attention weights with each new sentence, one layer's full trace when the four-steps
// view shows it, and the model's predictions. Heads can be switched off (ablation-panel.js, the
// model view's badges, the role table): they are part of the inputs, so the worker runs the model
// again without them. Each head's role is measured on every run, or over the probe set on request
// (roles-panel.js), and the probe-set measure is kept per model.
import { VIEWS } from '../src/views/views.js';
import { VIEWS_CSS, palette } from '../src/views/styles.js';
import { tokenLabel } from '../src/views/dom.js';
import { truncationNote, viewData } from '../src/views/view-data.js';
import { MAX_SENTENCE } from '../src/element/attributes.js';
import { readUrlState, urlHash } from './url-state.js';
import { download, embedSnippets, saveFile } from './share.js';
import { LimitedWorker, Stopped, timeLimit } from './limited-worker.js';
import { BUILTIN_MODEL, createModelPicker, modelName } from './model-picker.js';
import { EXAMPLES } from './examples.js';
import { renderPredictions } from './predictions.js';
import { createRolesPanel } from './roles-panel.js';
import { createAblationPanel } from './ablation-panel.js';
import { rolesCsv, rolesJson } from './role-files.js';

const TYPING_DELAY = 200; // ms of quiet before the sentence is run
const SLOW = 300; // ms before a run in flight is reported and can be cancelled (long pastes take a second)
// A run's time limit grows with the model's work on top of the tokenizer's allowance, at an
// assumed floor of 1 GFLOP/s (a 2-core VM measures several): BERT-base at 512 tokens is about
// 100 GFLOP, so an honest run there may take tens of seconds and must not be stopped as a hang.
const FLOPS_PER_MS = 1e6;

const $ = (id) => document.getElementById(id);
const controls = {
  sentence: $('sentence'), layer: $('layer'), head: $('head'),
  toyD: $('toy-d'), toyHeads: $('toy-heads'), toyCausal: $('toy-causal'), toySeed: $('toy-seed'),
};

const state = {
  info: null, // the model's sizes and kind ({ architecture, causal, hasLmHead, …}), once the worker is ready
  hubUrl: hubFromQuery(), // where Hub ids are fetched from: ?hub=, for tests against a fake Hub
  model: BUILTIN_MODEL, // the model on screen (a model-picker.js choice)
  loading: null, // { loadId, choice }: a model being loaded, while `model` stays on screen
  loads: 0, // numbers the loads; messages of an older one are dropped
  models: 0, // numbers the models made ready; a result belongs to one
  gridAll: false, // the grid view shows every layer's heads (layer=all)
  at: null, // the token chosen to show a causal model's next-token predictions after it, or null
  pointed: null, // the token under the pointer in the token list, or null
  focused: null, // the token with the keyboard focus in the token list, or null
  mode: 'model', // 'model' | 'toy'
  view: 'grid', // a key of VIEWS
  layer: 1, // layer 2 has the sharpest heads (previous and next word): a telling first view
  head: 0, // a head index, or 'all' (lines view only)
  toy: { dModel: 8, numHeads: 2, causal: false, seed: 1 }, // as the toy controls' defaults in index.html
  result: null, // { key, tokens, unknown, …, layers, traced, predictions (masked LM), nextTokens (causal LM) } for the current inputs
  asked: 0, // numbers every change of the inputs; an answer to an older number is dropped
  busy: false, // a request is in flight
  slowTimer: 0, // reports a request that takes long, and offers to cancel it
  stale: false, // the inputs changed while busy: ask again when it answers
  current: null, // { name, view, root } on screen
  ablate: [], // heads switched off, [{ layer, head }] in layer then head order
  ablation: 'zero', // what a switched-off head passes on: 'zero' | 'mean'
  rolesMode: 'live', // head roles measured 'live' (on the sentence) or over the 'probes'
  measured: new Map(), // model key → measureHeadRoles' result (with relationMeanings), per model
  measuring: null, // { measureId, key, done, total }: the probe-set measure in the worker
  measures: 0, // numbers the measures; messages of an older one are dropped
  measureFailed: '', // why the last measure stopped, for the panel
};

const picker = createModelPicker({ onLoad: (choice) => loadModel(choice, { fresh: true }), onCancel: cancelLoad });
const rolesPanel = createRolesPanel($('roles'), { onMeasure: measureRoles, onCancel: cancelMeasure, onToggleHead: toggleHead, onDownload: downloadRoles });
const ablationPanel = createAblationPanel($('ablation'), { onToggleHead: toggleHead, onReset: () => setAblated([]) });
const worker = new LimitedWorker(startWorker, { limit: runLimit, onEvent: onWorkerEvent, onRestart });
worker.ready.then(onReady, (error) => showError(error.message));

/** A fresh worker, told which model to start with: the one on screen (a restart reloads it). */
function startWorker() {
  const created = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  created.postMessage({ type: 'start', source: workerSource(state.model), hubUrl: state.hubUrl });
  return created;
}

/** What the worker's engine.loadModel takes for a choice (Files cross to the worker uncopied). */
function workerSource(choice) {
  return choice.kind === 'hub' ? choice.id : choice.kind === 'local' ? choice.files : { builtin: choice.id };
}

/** A choice as the URL's model= and the element's model attribute name it: undefined for the default model. */
function linkedModel(choice) {
  if (choice.kind === 'hub') return choice.id;
  return choice.kind === 'builtin' && choice.id !== 'default' ? choice.id : undefined;
}

/** The ?hub= of the page's address, when it is an http(s) URL (anything else is ignored). */
function hubFromQuery() {
  const text = new URLSearchParams(location.search).get('hub');
  if (text === null) return undefined;
  try {
    const url = new URL(text);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password) return url.href;
  } catch {
    // not a URL: ignored
  }
  return undefined;
}

function runLimit(characters) {
  const info = state.info;
  if (!info) return timeLimit(characters);
  const n = Math.min(info.maxTokens, characters + 2), d = info.dModel;
  // Per layer: the Q, K, V, output and feed-forward products (about 24·n·d²) and the n × n scores (4·n²·d).
  const flops = info.numLayers * (24 * n * d * d + 4 * n * n * d) + (info.hasLmHead ? 64 * d * info.vocabSize : 0);
  return timeLimit(characters) + Math.ceil(flops / FLOPS_PER_MS);
}

function onReady(info) {
  state.info = info;
  picker.refreshCache();
  const wanted = readUrlState(location.hash).model;
  if (info.fallback) {
    // Only after a restart: the model on screen could not be loaded again.
    picker.showMessage(`${Named(state.model)} could not be loaded again, so the built-in model is back: ${info.fallback}`);
    state.model = BUILTIN_MODEL;
    picker.select(BUILTIN_MODEL);
  }
  // Before the first drawing, which writes the URL: the link's model must stay in it while it loads.
  // Not after a failed reload (fallback): trying the same model again would hide why it failed.
  if (!info.fallback && wanted && !sameModel(wanted, state.model) && !state.loading) loadModel(wanted);
  modelReady(info);
}

function modelReady(info) {
  state.info = info;
  state.models++;
  document.body.dataset.threads = String(info.threads); // for tests: the status line is replaced by the next run's
  status(`Model ready: ${info.numLayers} layers × ${info.numHeads} heads, d_model ${info.dModel} (${info.simd ? 'SIMD' : 'scalar'} WebAssembly, ${info.threads === 1 ? '1 thread' : `${info.threads} threads`}).`);
  $('model-status').textContent = describeModel(state.model, info);
  showModelName();
  state.result = null;
  state.at = null;
  state.pointed = state.focused = null;
  state.measuring = null; // the worker stops measuring the model it freed
  state.measureFailed = '';
  state.ablate = heldHeads(state.ablate, info);
  showExamples(info.causal);
  request();
}

/** The heads of `ablate` that a model of `info`'s sizes has. */
function heldHeads(ablate, info) {
  return ablate.filter(({ layer, head }) => layer < info.numLayers && head < info.numHeads);
}

/** The key the probe-set measure is kept under: one per model (a local folder's only while it is on screen). */
function modelKey(choice = state.model) {
  if (choice.kind === 'hub') return `hub ${state.hubUrl ?? ''} ${choice.id}`;
  return choice.kind === 'builtin' ? `builtin ${choice.id}` : `local ${state.models}`;
}

function describeModel(choice, info) {
  const kind = { bert: 'BERT', distilbert: 'DistilBERT', roberta: 'RoBERTa', gpt2: 'GPT-2' }[info.architecture] ?? info.architecture;
  const head = !info.hasLmHead ? 'no language-model head, so no predictions'
    : info.causal ? 'causal: it predicts the next token' : `masked LM: it predicts each ${info.architecture === 'roberta' ? '<mask>' : '[MASK]'}`;
  const where = choice.kind === 'hub' && state.hubUrl ? ` (from ${new URL(state.hubUrl).host}, not the Hugging Face Hub)` : '';
  return `${Named(choice)}${where}: ${kind}, ${info.numLayers} layers × ${info.numHeads} heads, d_model ${info.dModel}, ` +
    `up to ${info.maxTokens} tokens; ${head}.`;
}

const capital = (text) => text[0].toUpperCase() + text.slice(1);
/** A choice's name at the start of a sentence (a Hub id keeps its case). */
const Named = (choice) => (choice.kind === 'hub' ? choice.id : capital(modelName(choice)));
const sameModel = (a, b) => a.kind === b.kind && a.id === b.id && a.kind !== 'local';

/** The header's name of the model on screen, and of the one loading. */
function showModelName() {
  const loading = state.loading ? `; loading ${modelName(state.loading.choice)}…` : '';
  $('model-name').textContent = `${modelName(state.model)}${loading}`;
}

/**
 * Starts loading `choice` in the worker; the model on screen keeps answering until it is ready.
 * `fresh` (the user picked it) switches every head back on: a link's heads stay, for its model.
 */
function loadModel(choice, { fresh = false } = {}) {
  if (fresh) state.ablate = [];
  if (sameModel(choice, state.model) && !state.loading) {
    picker.showMessage('');
    return picker.progress(null);
  }
  if (state.loading) worker.post({ type: 'cancel-load', loadId: state.loading.loadId });
  const loadId = ++state.loads;
  state.loading = { loadId, choice, started: performance.now() };
  picker.select(choice);
  picker.showMessage('');
  picker.progress(modelName(choice), null);
  document.body.dataset.model = 'loading';
  worker.post({ type: 'load', loadId, source: workerSource(choice), hubUrl: state.hubUrl });
  showModelName();
  keepInUrl();
}

function cancelLoad() {
  if (state.loading) worker.post({ type: 'cancel-load', loadId: state.loading.loadId });
}

/** A load's or a measure's progress and end, from the worker. */
function onWorkerEvent(data) {
  if (data.type.startsWith('roles-')) return onMeasureEvent(data);
  const loading = state.loading;
  if (!loading || data.loadId !== loading.loadId) return;
  if (data.type === 'progress') return picker.progress(modelName(loading.choice), data);
  state.loading = null;
  picker.progress(null);
  showModelName();
  if (data.type === 'loaded') {
    state.model = loading.choice;
    document.body.dataset.model = 'ready';
    picker.refreshCache();
    picker.showMessage('');
    $('model-status').dataset.loadMs = String(Math.round(performance.now() - loading.started));
    return modelReady(data.info);
  }
  document.body.dataset.model = data.aborted ? 'cancelled' : 'error';
  picker.select(state.model);
  picker.refreshCache();
  const kept = `${Named(state.model)} is still loaded.`;
  picker.showMessage(data.aborted
    ? `Loading ${modelName(loading.choice)} was cancelled. ${kept}`
    : `Could not load ${modelName(loading.choice)}: ${data.message.replace(/\.$/, '')}. ${kept}`);
  keepInUrl();
}

/** Asks the worker to measure every head of the model on screen over the probe set. */
function measureRoles() {
  if (!state.info || state.measuring) return;
  const measureId = ++state.measures;
  state.measuring = { measureId, key: modelKey(), done: 0, total: 0 };
  state.measureFailed = '';
  worker.post({ type: 'measure-roles', measureId });
  showRoles();
}

function cancelMeasure() {
  if (state.measuring) worker.post({ type: 'cancel-measure', measureId: state.measuring.measureId });
}

function onMeasureEvent(data) {
  const measuring = state.measuring;
  if (!measuring || data.measureId !== measuring.measureId) return;
  if (data.type === 'roles-progress') {
    Object.assign(measuring, { done: data.done, total: data.total });
    return showRoles();
  }
  state.measuring = null;
  if (data.type === 'roles-measured') state.measured.set(measuring.key, data.measured);
  else state.measureFailed = data.aborted ? 'Cancelled.' : `The measure failed: ${data.message}`;
  const focused = document.activeElement?.id;
  render();
  // Cancel and Measure hide or stay; the keyboard's focus goes back to the mode it chose.
  if (focused === 'roles-cancel' || focused === 'roles-start') document.querySelector('input[name="rolesMode"]:checked').focus();
}

/** Switches head (layer, head) off, or on again when it is off. */
function toggleHead(layer, head) {
  const off = state.ablate.some((a) => a.layer === layer && a.head === head);
  setAblated(off ? state.ablate.filter((a) => a.layer !== layer || a.head !== head) : [...state.ablate, { layer, head }]);
}

/** Runs the model with exactly the heads `ablate` switched off. */
function setAblated(ablate) {
  state.ablate = [...ablate].sort((a, b) => a.layer - b.layer || a.head - b.head);
  request();
}

/** The head roles on screen: the probe set's for this model, or the live ones of the run shown. */
function shownRoles() {
  if (state.rolesMode === 'probes') return state.measured.get(modelKey()) ?? null;
  const heads = state.result?.roles;
  return heads ? { heads } : null;
}

/** Draws the role and ablation panels for the result on screen. */
function showRoles() {
  const model = state.mode === 'model' && Boolean(state.info);
  $('roles').hidden = $('ablation').hidden = !model;
  if (!model) return;
  const measuring = state.measuring?.key === modelKey() ? state.measuring : null;
  const roles = shownRoles();
  rolesPanel.update({
    ...roles, mode: state.rolesMode, heads: roles?.heads ?? null, measuring, failed: state.measureFailed,
    ablated: new Set(state.ablate.map(({ layer, head }) => `${layer}.${head}`)),
  });
  const r = state.result;
  ablationPanel.update({ ablated: state.ablate, changes: r?.ablated?.length ? r.changes ?? null : null });
}

/** Saves the role table on screen as CSV or JSON. */
function downloadRoles(kind) {
  const roles = shownRoles();
  if (!roles) return status('No head roles to download yet: type a sentence, or measure over the probe set.');
  const columns = Object.keys(roles.heads[0].scores);
  const meta = {
    model: modelName(state.model), measured: state.rolesMode === 'probes' ? 'over the probe set' : 'on one sentence',
    ...(state.rolesMode === 'probes' ? { relations: roles.relations, sentences: roles.sentences, runs: roles.runs } : { sentence: controls.sentence.value }),
  };
  const text = kind === 'csv' ? rolesCsv(roles.heads, columns) : rolesJson(roles.heads, meta);
  saveFile(new Blob([text], { type: kind === 'csv' ? 'text/csv' : 'application/json' }), `multihead-head-roles.${kind}`);
}

/** A stopped run replaced the worker: its load in flight went with it, so it starts again. */
function onRestart() {
  if (state.measuring) {
    state.measuring = null; // it went with the worker
    state.measureFailed = 'The measure stopped when the page restarted its worker: measure again.';
  }
  worker.ready.then((info) => {
    if (info.fallback) onReady(info);
    else state.info = info;
  }, () => {});
  if (state.loading) {
    const { loadId, choice } = state.loading;
    worker.post({ type: 'load', loadId, source: workerSource(choice), hubUrl: state.hubUrl });
  }
}

function onAnswer(answer, asked) {
  settled();
  if (state.stale) return request();
  if (answer.id !== state.asked) return; // the inputs changed since (the field was emptied)
  if (answer.type === 'error') return showError(`That sentence could not be run: ${answer.message}`);
  const fresh = state.result?.key !== asked.key;
  // nextTokens: a causal model's predictions by position, kept while the sentence stays, so
  // hovering back over a token asks the worker nothing.
  const r = fresh ? { key: asked.key, layers: [], traced: null, nextTokens: new Map() } : state.result;
  Object.assign(r, {
    tokens: answer.tokens, unknown: answer.unknown, truncated: answer.truncated, totalTokens: answer.totalTokens,
    // The toy layer's own mask, not the model's, is what its matrices show.
    causal: asked.toy ? asked.toy.causal : answer.causal, hasLmHead: answer.hasLmHead,
  });
  if (answer.layers) Object.assign(r, { layers: answer.layers, roles: answer.roles ?? null, changes: answer.changes ?? null, ablated: answer.ablated });
  if (answer.trace) {
    const { layer, ...matrices } = answer.trace;
    // One full layer at a time: the one before goes back to its weights.
    if (r.traced !== null && r.traced !== layer && r.layers[r.traced]) r.layers[r.traced] = { numHeads: r.layers[r.traced].numHeads, weights: r.layers[r.traced].weights };
    r.layers[layer] = matrices;
    r.traced = layer;
  }
  if (answer.predictions && answer.causal) {
    for (const { position, ...list } of answer.predictions) r.nextTokens.set(position, list); // { top, now? }
  } else if (answer.predictions) r.predictions = answer.predictions;
  state.result = r;
  const n = answer.tokens.length;
  if (fresh) {
    if (state.at !== null && state.at >= n - 1) state.at = null; // the chosen token is gone
    // The buttons pointed at or focused are about to be replaced, and a removed button may never
    // report that the pointer or the focus left it.
    state.pointed = state.focused = null;
    r.summary = `${n} tokens, computed in ${answer.ms.toFixed(1)} ms.`;
    notice(answer.truncated ? truncationNote({ ...answer, causal: state.info.causal }) : '');
  }
  status(r.summary); // also after a slow answer that only added predictions or a trace
  document.body.dataset.state = 'ready';
  // Only new tokens are drawn again: an answer that adds predictions keeps the buttons, and the
  // keyboard focus on the one that asked for them; and it redraws only the predictions.
  if (fresh) renderTokens(r);
  if (!fresh && !answer.layers && !answer.trace) return showPredictions();
  render();
}

/** What the inputs ask of the worker: a key naming the sentence, the mode and the model. */
function inputsKey() {
  const toy = state.mode === 'toy';
  const off = toy ? [] : state.ablate;
  return JSON.stringify([controls.sentence.value, state.mode, toy ? state.toy : null, state.models, off, off.length ? state.ablation : null]);
}

/**
 * The request the view on screen still needs, or null when the result holds it all: weights
 * for new inputs, the full trace of the layer the four-steps view shows, a causal model's
 * predictions at the chosen token.
 */
function missing() {
  const key = inputsKey();
  const r = state.result?.key === key ? state.result : null;
  const toy = state.mode === 'toy';
  const text = controls.sentence.value;
  if (toy) return r ? null : { key, text, toy: { ...state.toy }, weights: false, trace: 0, at: null };
  const layer = shownLayer();
  const trace = state.view === 'steps' && r?.traced !== layer ? layer : null;
  const at = state.info.causal ? predictedAt() : null;
  const predicted = !r?.hasLmHead || !state.info.causal || (r.nextTokens.has(r.tokens.length - 1) && (at === null || r.nextTokens.has(at)));
  if (r && trace === null && predicted) return null;
  return { key, text, toy: null, weights: !r, trace, at, roles: true, ablate: state.ablate, ablation: state.ablation };
}

/** Sends what the view still needs to the worker, or waits until the request in flight answers. */
function request() {
  if (!state.info) return;
  const text = controls.sentence.value;
  state.asked++;
  if (text.trim() === '') {
    state.result = null;
    clearTimeout(state.slowTimer);
    notice('');
    return showEmpty();
  }
  if (state.busy) {
    state.stale = true;
    return;
  }
  const asked = missing();
  if (asked === null) {
    // What is on screen is what the inputs ask for: a request that ended stale found them back
    // where they were (a letter typed and deleted while it ran), and the page is ready again.
    if (document.body.dataset.state === 'busy') {
      status(state.result.summary);
      document.body.dataset.state = 'ready';
    }
    return render();
  }
  state.busy = true;
  state.stale = false;
  document.body.dataset.state = 'busy';
  state.slowTimer = setTimeout(() => {
    status(`Working on ${count(text.length)} characters…`);
    $('cancel').hidden = false;
  }, SLOW);
  const id = state.asked;
  const { key, ...message } = asked;
  worker.run({ id, ...message }, text.length)
    .then((answer) => onAnswer(answer, asked), (error) => onStopped(error, id, text.length));
}

/** The request in flight has ended, one way or another. */
function settled() {
  state.busy = false;
  clearTimeout(state.slowTimer);
  const cancel = $('cancel');
  // The button disappears under the keyboard's focus: give the focus to the sentence it was about.
  if (document.activeElement === cancel) controls.sentence.focus();
  cancel.hidden = true;
}

/** A request ended without an answer: over its time limit, cancelled, or the worker failed. */
function onStopped(error, id, characters) {
  settled();
  if (!(error instanceof Stopped)) return showError(error.message);
  if (state.stale) return request(); // the inputs changed meanwhile: the fresh worker runs them
  if (id !== state.asked) return; // the field was emptied since
  state.result = null;
  state.current?.view.destroy();
  state.current = null;
  $('view').replaceChildren();
  $('tokens').replaceChildren();
  renderPredictions($('predictions'), state.info, null);
  notice('');
  keepInUrl();
  if (error.reason === 'time') {
    showError(`Stopped after ${seconds(error.limit)}: tokenizing this text took too long (the page allows ` +
      `${seconds(error.limit)} for ${count(characters)} characters), as a tokenizer with a pathological pattern can. ` +
      'The page restarted its worker; the sentence is kept: change it to try again.');
  } else {
    status(`Cancelled after ${seconds(error.ms)}. The page restarted its worker; the sentence is kept: change it to run it again.`);
    document.body.dataset.state = 'cancelled';
  }
}

const count = (n) => n.toLocaleString('en');
const seconds = (ms) => `${ms < 10000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`;

function render() {
  const r = state.result;
  if (!r || r.key !== inputsKey()) return;
  if (missing() !== null) return request(); // the four-steps view's layer, or the chosen token's predictions
  const layers = r.layers.length;
  // The toy has one layer; state.layer keeps the model's choice for when the user comes back.
  if (state.mode === 'model') state.layer = Math.min(state.layer, layers - 1);
  const layer = shownLayer();
  const heads = r.layers[layer].numHeads;
  const all = state.gridAll && state.view === 'grid' && layers > 1;
  const layerChoices = Array.from({ length: layers }, (_, l) => [l, `${l + 1}`]);
  if (state.view === 'grid' && layers > 1) layerChoices.push(['all', 'All layers']);
  setOptions(controls.layer, layerChoices, all ? 'all' : layer);
  const headChoices = Array.from({ length: heads }, (_, h) => [h, `${h + 1}`]);
  if (state.view === 'lines') headChoices.push(['all', 'All heads']);
  if (state.head !== 'all') state.head = Math.min(state.head, heads - 1);
  if (state.head === 'all' && state.view !== 'lines') state.head = 0;
  setOptions(controls.head, headChoices, state.head);
  $('layer-control').hidden = layers === 1;
  $('head-control').hidden = !['head', 'lines'].includes(state.view);

  const ablated = state.mode === 'model' ? state.ablate : [];
  const roles = state.mode === 'model' ? shownRoles()?.heads ?? null : null;
  show(state.view).update(viewData(state.view, r, all ? 'all' : layer, { head: state.head, toy: state.mode === 'toy', roles, ablated }));
  showPredictions();
  showRoles();
  keepInUrl();
}

function showPredictions() {
  renderPredictions($('predictions'), state.info, state.mode === 'model' ? predictionsOf(state.result) : null);
}

/** The token whose next-token predictions show beside the last one's: pointed at, else focused, else chosen, else none. */
function predictedAt() {
  return state.pointed ?? state.focused ?? state.at;
}

/** What the predictions panel draws: a causal model's lists after the token shown and the last one. */
function predictionsOf(r) {
  if (!state.info.causal) return r;
  const n = r.tokens.length;
  const at = predictedAt();
  const positions = at !== null && at < n - 1 ? [at, n - 1] : [n - 1];
  const predictions = positions.filter((p) => r.nextTokens.has(p)).map((position) => ({ position, ...r.nextTokens.get(position) }));
  return { ...r, predictions };
}

/** The layer on screen: state.layer, within the model's layers (the toy has one). */
function shownLayer() {
  return Math.min(state.layer, (state.mode === 'toy' ? 1 : state.info?.numLayers ?? 1) - 1);
}

/**
 * Mirrors the state into the URL, so the address bar always links to what is on screen.
 * replaceState fires no hashchange: the page never reads back its own writes.
 */
function keepInUrl() {
  const { mode, view, head, toy } = state;
  const layer = state.gridAll && view === 'grid' ? 'all' : state.layer;
  const sentence = controls.sentence.value;
  // The model asked for, even before it is ready: reloading the page asks for it again. A local
  // folder cannot be named in a link.
  const model = linkedModel(state.loading?.choice ?? state.model);
  const { ablate, ablation } = state;
  history.replaceState(null, '', urlHash({ sentence, mode, view, layer, head, toy, model, ablate, ablation }));
  const note = $('link-notice');
  note.hidden = sentence.length <= MAX_SENTENCE;
  note.textContent = note.hidden ? '' : `This text is too long to share by link: it has ${count(sentence.length)} ` +
    `characters, and the address bar and Embed keep only the first ${count(MAX_SENTENCE)}.`;
}

/**
 * Sets the controls and the state to what a URL hash asks for. What the hash leaves out stays as
 * it is, so an in-page link such as #view=steps keeps the sentence. Runs nothing; returns whether
 * the inputs (the sentence, the mode, the toy layer or the heads switched off) changed, which
 * needs a new result.
 */
function applyUrlState(hash) {
  const { sentence, mode, view, layer, head, toy, model, ablate, ablation } = readUrlState(hash);
  // A model named by the link is loaded once the worker is ready (onReady, onHashChange). Heads
  // switched off belong to their model: a link to another one that names none switches all on.
  if (model && !sameModel(model, state.loading?.choice ?? state.model) && ablate === undefined) state.ablate = [];
  if (model && state.info && !sameModel(model, state.loading?.choice ?? state.model)) loadModel(model);
  const inputs = () => JSON.stringify([controls.sentence.value, state.mode, state.toy, state.ablate, state.ablation]);
  const before = inputs();
  if (sentence !== undefined) controls.sentence.value = sentence;
  if (toy) {
    // A size the page does not offer keeps the control as it was; readToyControls then checks the rest.
    const offer = (select, value) => {
      if ([...select.options].some((option) => option.value === String(value))) select.value = String(value);
    };
    if (toy.dModel !== undefined) offer(controls.toyD, toy.dModel);
    if (toy.numHeads !== undefined) offer(controls.toyHeads, toy.numHeads);
    if (toy.causal !== undefined) controls.toyCausal.checked = toy.causal;
    if (toy.seed !== undefined) controls.toySeed.value = String(toy.seed);
    readToyControls();
  }
  for (const [group, value] of [['mode', mode], ['view', view]]) {
    if (value === undefined) continue;
    document.querySelector(`input[name="${group}"][value="${value}"]`).checked = true;
    state[group] = value;
  }
  $('toy-controls').hidden = state.mode !== 'toy';
  if (layer === 'all') state.gridAll = true;
  else if (layer !== undefined) {
    state.layer = layer;
    state.gridAll = false;
  }
  if (head !== undefined) state.head = head;
  // Heads beyond the model's are dropped: now for the model on screen, once it is ready for one loading.
  if (ablate !== undefined) state.ablate = state.info && !state.loading ? heldHeads(ablate, state.info) : ablate;
  if (ablation !== undefined) {
    state.ablation = ablation;
    document.querySelector(`input[name="ablation"][value="${ablation}"]`).checked = true;
  }
  return inputs() !== before;
}

/** A hash changed by a link, by hand or by Back: applied as a new state. */
function onHashChange() {
  if (!applyUrlState(location.hash)) return render();
  state.result = null; // the view on screen no longer matches the inputs
  request();
}

/** The view called `name`, created on first use; the previous one is destroyed. */
function show(name) {
  if (state.current?.name === name) return state.current.view;
  state.current?.view.destroy();
  const root = document.createElement('div');
  $('view').replaceChildren(root);
  const onSelectHead = (h, layer = null) => {
    state.head = h;
    if (layer !== null) state.layer = layer; // from the every-layer grid, which stays for when the user comes back
    choose('view', 'head');
  };
  const options = name === 'grid' ? { onSelectHead, onToggleHead: toggleHead } : {};
  state.current = { name, view: VIEWS[name](root, options), root };
  return state.current.view;
}

function choose(group, value) {
  document.querySelector(`input[name="${group}"][value="${value}"]`).checked = true;
  onRadio(group, value);
}

function onRadio(group, value) {
  state[group] = value;
  if (group === 'ablation') return request(); // a new run when heads are off; a redraw otherwise
  if (group === 'rolesMode' && value === 'probes' && !state.measured.has(modelKey())) measureRoles();
  if (group === 'mode') {
    $('toy-controls').hidden = value !== 'toy';
    state.result = null;
    return request();
  }
  render();
}

function renderTokens({ tokens, unknown, causal, hasLmHead }) {
  const list = $('tokens');
  // A causal model's tokens are buttons: pointing at one (or focusing it) shows what the model
  // expects after it, and choosing one keeps that list on screen.
  const choosable = causal && hasLmHead && state.mode === 'model';
  list.replaceChildren(...tokens.map((t, i) => {
    const token = tokenLabel(choosable ? 'button' : 'span', t, unknown[i]);
    if (!choosable) return token;
    token.type = 'button';
    token.setAttribute('aria-pressed', String(state.at === i));
    token.setAttribute('aria-label', `${t}: show what the model expects after token ${i + 1}`);
    token.addEventListener('click', () => {
      state.at = state.at === i ? null : i;
      for (const [k, b] of [...list.querySelectorAll('button.mh-token')].entries()) b.setAttribute('aria-pressed', String(state.at === k));
      request();
    });
    // Pointing and focusing ask for the predictions after this token; when they are known already
    // only the predictions panel is drawn again, so sweeping the pointer along the tokens stays cheap.
    const point = (slot, at) => () => {
      if (state[slot] === at) return;
      state[slot] = at;
      if (state.busy || missing() !== null) request();
      else showPredictions();
    };
    token.addEventListener('pointerenter', point('pointed', i));
    token.addEventListener('pointerleave', point('pointed', null));
    token.addEventListener('focus', point('focused', i));
    token.addEventListener('blur', point('focused', null));
    return token;
  }));
  if (unknown.some(Boolean)) {
    const key = document.createElement('span');
    key.className = 'tokens-key';
    key.textContent = 'underlined in dashes: not in the model\'s vocabulary';
    list.append(key);
  }
}

function showEmpty() {
  state.current?.view.destroy();
  state.current = null;
  $('view').replaceChildren();
  $('tokens').replaceChildren();
  renderPredictions($('predictions'), state.info ?? {}, null);
  status('Type a sentence (or pick an example) to see how each head attends.');
  document.body.dataset.state = 'empty';
  keepInUrl();
}

function showError(message) {
  status(message);
  document.body.dataset.state = 'error';
}

function status(text) {
  $('status').textContent = text;
}

function notice(text) {
  $('notice').textContent = text;
  $('notice').hidden = text === '';
}

function setOptions(select, choices, selected = select.value) {
  const same = select.options.length === choices.length && choices.every(([v, label], i) =>
    select.options[i].value === String(v) && select.options[i].text === label);
  if (!same) select.replaceChildren(...choices.map(([v, label]) => new Option(label, String(v))));
  select.value = String(selected);
}

function debounce(fn, ms) {
  let timer = 0;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

/** Reads the toy controls into state.toy; returns false (and marks the seed) when the seed is not valid. */
function readToyControls() {
  const seed = Number(controls.toySeed.value);
  const valid = controls.toySeed.value !== '' && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff;
  controls.toySeed.setAttribute('aria-invalid', String(!valid));
  $('toy-seed-error').hidden = valid;
  if (!valid) return false;
  const dModel = Number(controls.toyD.value);
  // Only head counts that divide d_model are offered.
  for (const option of controls.toyHeads.options) option.disabled = dModel % Number(option.value) !== 0;
  let numHeads = Number(controls.toyHeads.value);
  if (dModel % numHeads !== 0) controls.toyHeads.value = String((numHeads = 1));
  state.toy = { dModel, numHeads, causal: controls.toyCausal.checked, seed };
  return true;
}

function readToy() {
  if (!readToyControls()) return;
  state.result = null;
  request();
}

function start() {
  applyUrlState(location.hash); // nothing runs yet: the worker is not ready
  const style = document.createElement('style');
  style.textContent = `:root { ${palette('light')} }\n@media (prefers-color-scheme: dark) { :root { ${palette('dark')} } }\n${VIEWS_CSS}`;
  document.head.append(style);

  showExamples(false);
  controls.sentence.addEventListener('input', debounce(request, TYPING_DELAY));
  for (const input of document.querySelectorAll('input[type="radio"]')) {
    input.addEventListener('change', () => onRadio(input.name, input.value));
  }
  controls.layer.addEventListener('change', () => {
    state.gridAll = controls.layer.value === 'all';
    if (!state.gridAll) state.layer = Number(controls.layer.value);
    render();
  });
  controls.head.addEventListener('change', () => {
    state.head = controls.head.value === 'all' ? 'all' : Number(controls.head.value);
    render();
  });
  for (const input of [controls.toyD, controls.toyHeads, controls.toyCausal]) input.addEventListener('change', readToy);
  controls.toySeed.addEventListener('input', debounce(readToy, TYPING_DELAY));
  window.addEventListener('resize', debounce(render, 150));
  window.addEventListener('hashchange', onHashChange);
  const cancel = () => worker.cancel(); // settles the request: onStopped says so
  $('cancel').addEventListener('click', cancel);
  controls.sentence.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && worker.busy) cancel();
  });
  wireSharing();
  // The picker sits below the view, which stays where a reader expects it; this takes them there.
  $('model-change').addEventListener('click', () => {
    $('model').scrollIntoView({ block: 'center' });
    $('model-choice').focus({ preventScroll: true });
  });
}

/** The example buttons for a causal model's or a masked model's sentences. */
function showExamples(causal) {
  const examples = document.querySelector('.examples');
  examples.dataset.kind = causal ? 'causal' : 'masked';
  examples.replaceChildren(examples.firstElementChild, ...EXAMPLES[examples.dataset.kind].map((text) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = text;
    button.addEventListener('click', () => {
      controls.sentence.value = text;
      request();
    });
    return button;
  }));
}

function wireSharing() {
  const dialog = $('embed-dialog');
  $('embed').addEventListener('click', () => {
    const { iframe, element, notes } = embedSnippets({
      sentence: controls.sentence.value, view: state.view, layer: shownLayer(), head: state.head, toy: state.mode === 'toy',
      model: linkedModel(state.model),
    });
    $('embed-iframe').value = iframe;
    $('embed-element').value = element;
    for (const kind of ['iframe', 'element']) {
      $(`embed-${kind}-note`).textContent = notes[kind];
      $(`embed-${kind}-note`).hidden = notes[kind] === '';
    }
    dialog.showModal();
  });
  for (const button of dialog.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const field = $(button.dataset.copy);
      field.select();
      const done = await navigator.clipboard?.writeText(field.value).then(() => true, () => false);
      button.textContent = done ? 'Copied' : 'Selected: press Ctrl+C';
    });
  }
  for (const kind of ['png', 'svg', 'json']) {
    $(`export-${kind}`).addEventListener('click', () => {
      if (!state.result) return status('Nothing to download yet: type a sentence first.');
      const all = state.gridAll && state.view === 'grid' && state.result.layers.length > 1;
      const roles = state.mode === 'model' ? shownRoles()?.heads ?? null : null;
      download(kind, state.result, { view: state.view, layer: all ? 'all' : shownLayer(), head: state.head, roles, ablated: state.mode === 'model' ? state.ablate : [] })
        .catch((error) => status(`The download failed: ${error.message}`));
    });
  }
}

start();
