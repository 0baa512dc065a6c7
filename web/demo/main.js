// The page's controller: one state object, the controls that change it, the worker that computes,
// and the one view on screen. It asks the worker for a new result when the sentence or the toy
// settings change (debounced, never more than one request in flight) and redraws the view
// otherwise. The drawing itself is web/src/views; the computing is worker.js, behind a time limit
// and a Cancel button (limited-worker.js). The URL's hash holds the state both ways: the page
// keeps it up to date, and a hash changed by a link or by hand is applied as a new state.
import { VIEWS } from '../src/views/views.js';
import { VIEWS_CSS, palette } from '../src/views/styles.js';
import { tokenLabel } from '../src/views/dom.js';
import { viewData } from '../src/views/view-data.js';
import { MAX_SENTENCE, readUrlState, urlHash } from './url-state.js';
import { download, embedSnippets } from './share.js';
import { LimitedWorker, Stopped } from './limited-worker.js';

const EXAMPLES = [
  'The cat sat on the mat because it was tired.',
  'The president said that the nation would not forget.',
  'She gave him the book, and he read it twice.',
  'We hold these truths to be self-evident.',
  'Le chat 🐈 dort sur le tapis.',
];
const TYPING_DELAY = 200; // ms of quiet before the sentence is run
const SLOW = 300; // ms before a run in flight is reported and can be cancelled (long pastes take a second)

const $ = (id) => document.getElementById(id);
const controls = {
  sentence: $('sentence'), layer: $('layer'), head: $('head'),
  toyD: $('toy-d'), toyHeads: $('toy-heads'), toyCausal: $('toy-causal'), toySeed: $('toy-seed'),
};

const state = {
  info: null, // the model's sizes, once the worker is ready
  mode: 'model', // 'model' | 'toy'
  view: 'grid', // a key of VIEWS
  layer: 1, // layer 2 has the sharpest heads (previous and next word): a telling first view
  head: 0, // a head index, or 'all' (lines view only)
  toy: { dModel: 8, numHeads: 2, causal: false, seed: 1 }, // as the toy controls' defaults in index.html
  result: null, // the worker's answer for the current inputs
  asked: 0, // numbers every change of the inputs; an answer to an older number is dropped
  busy: false, // a request is in flight
  slowTimer: 0, // reports a request that takes long, and offers to cancel it
  stale: false, // the inputs changed while busy: ask again when it answers
  current: null, // { name, view, root } on screen
};

const worker = new LimitedWorker(() => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
worker.ready.then(onReady, (error) => showError(error.message));

function onReady(info) {
  state.info = info;
  status(`Model ready: ${info.numLayers} layers × ${info.numHeads} heads, d_model ${info.dModel} (${info.simd ? 'SIMD' : 'scalar'} WebAssembly).`);
  request();
}

function onAnswer(answer) {
  settled();
  if (state.stale) return request();
  if (answer.id !== state.asked) return; // the inputs changed since (the field was emptied)
  if (answer.type === 'error') return showError(`That sentence could not be run: ${answer.message}`);
  state.result = answer;
  const n = answer.tokens.length;
  status(`${n} tokens, computed in ${answer.ms.toFixed(1)} ms.`);
  notice(answer.truncated
    ? `This text has ${answer.totalTokens} tokens, more than the model's ${state.info.maxTokens}: only the first ` +
      `${n - 1} and the closing [SEP] are shown.`
    : '');
  renderTokens(answer);
  render();
  document.body.dataset.state = 'ready';
}

/** Sends the current sentence to the worker, or waits until the one in flight answers. */
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
  state.busy = true;
  state.stale = false;
  document.body.dataset.state = 'busy';
  state.slowTimer = setTimeout(() => {
    status(`Working on ${count(text.length)} characters…`);
    $('cancel').hidden = false;
  }, SLOW);
  const id = state.asked;
  worker.run({ id, text, toy: state.mode === 'toy' ? { ...state.toy } : null }, text.length)
    .then(onAnswer, (error) => onStopped(error, id, text.length));
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
  if (!r) return;
  const layers = r.layers.length;
  // The toy has one layer; state.layer keeps the model's choice for when the user comes back.
  if (state.mode === 'model') state.layer = Math.min(state.layer, layers - 1);
  const layer = shownLayer();
  const heads = r.layers[layer].numHeads;
  setOptions(controls.layer, Array.from({ length: layers }, (_, l) => [l, `${l + 1}`]), layer);
  const headChoices = Array.from({ length: heads }, (_, h) => [h, `${h + 1}`]);
  if (state.view === 'lines') headChoices.push(['all', 'All heads']);
  if (state.head !== 'all') state.head = Math.min(state.head, heads - 1);
  if (state.head === 'all' && state.view !== 'lines') state.head = 0;
  setOptions(controls.head, headChoices, state.head);
  $('layer-control').hidden = layers === 1;
  $('head-control').hidden = state.view === 'grid' || state.view === 'steps';

  show(state.view).update(viewData(state.view, r, layer, { head: state.head, toy: state.mode === 'toy' }));
  keepInUrl();
}

/** The layer on screen: state.layer, within the result's layers (the toy has one). */
function shownLayer() {
  return Math.min(state.layer, (state.result?.layers.length ?? state.info?.numLayers ?? 1) - 1);
}

/**
 * Mirrors the state into the URL, so the address bar always links to what is on screen.
 * replaceState fires no hashchange: the page never reads back its own writes.
 */
function keepInUrl() {
  const { mode, view, layer, head, toy } = state;
  const sentence = controls.sentence.value;
  history.replaceState(null, '', urlHash({ sentence, mode, view, layer, head, toy }));
  const note = $('link-notice');
  note.hidden = sentence.length <= MAX_SENTENCE;
  note.textContent = note.hidden ? '' : `This text is too long to share by link: it has ${count(sentence.length)} ` +
    `characters, and the address bar and Embed keep only the first ${count(MAX_SENTENCE)}.`;
}

/**
 * Sets the controls and the state to what a URL hash asks for. What the hash leaves out stays as
 * it is, so an in-page link such as #view=steps keeps the sentence. Runs nothing; returns whether
 * the inputs (the sentence, the mode or the toy layer) changed, which needs a new result.
 */
function applyUrlState(hash) {
  const { sentence, mode, view, layer, head, toy } = readUrlState(hash);
  const inputs = () => JSON.stringify([controls.sentence.value, state.mode, state.toy]);
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
  if (layer !== undefined) state.layer = layer;
  if (head !== undefined) state.head = head;
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
  const options = name === 'grid' ? { onSelectHead: (h) => { state.head = h; choose('view', 'head'); } } : {};
  state.current = { name, view: VIEWS[name](root, options), root };
  return state.current.view;
}

function choose(group, value) {
  document.querySelector(`input[name="${group}"][value="${value}"]`).checked = true;
  onRadio(group, value);
}

function onRadio(group, value) {
  state[group] = value;
  if (group === 'mode') {
    $('toy-controls').hidden = value !== 'toy';
    state.result = null;
    return request();
  }
  render();
}

function renderTokens({ tokens, unknown }) {
  const list = $('tokens');
  list.replaceChildren(...tokens.map((t, i) => tokenLabel('span', t, unknown[i])));
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

  const examples = document.querySelector('.examples');
  for (const text of EXAMPLES) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = text;
    button.addEventListener('click', () => {
      controls.sentence.value = text;
      request();
    });
    examples.append(button);
  }
  controls.sentence.addEventListener('input', debounce(request, TYPING_DELAY));
  for (const input of document.querySelectorAll('input[type="radio"]')) {
    input.addEventListener('change', () => onRadio(input.name, input.value));
  }
  controls.layer.addEventListener('change', () => { state.layer = Number(controls.layer.value); render(); });
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
}

function wireSharing() {
  const dialog = $('embed-dialog');
  $('embed').addEventListener('click', () => {
    const { iframe, element, notes } = embedSnippets({
      sentence: controls.sentence.value, view: state.view, layer: shownLayer(), head: state.head, toy: state.mode === 'toy',
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
      download(kind, state.result, { view: state.view, layer: shownLayer(), head: state.head })
        .catch((error) => status(`The download failed: ${error.message}`));
    });
  }
}

start();
