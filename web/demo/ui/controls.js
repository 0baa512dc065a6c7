// The page's controls: the sentence and its examples (an encoder–decoder's source, with T5's task
// prefixes), model or toy layer, an encoder–decoder's attention (encoder, decoder or cross), the
// view, the layer and head, the toy layer's sizes, how switched-off heads and roles are shown, and Cancel. Each input
// dispatches what the reader chose; render() sets every control from the state, never the other
// way round. The sentence field is the one exception to redrawing: what the reader is typing is
// not overwritten by the slightly older sentence the settings hold until the typing pause ends.
// Where the worker's run can be interrupted (session.interruptible) there is no pause: each
// keystroke is sent at once, and a run for text typed past stops after its current layer.
import { EXAMPLES } from '../examples.js';
import { allLayersShown, shownHead, shownLayer, shownStack, stackLayers } from '../state/settings.js';
import { modelKey } from '../session.js';
import { debounce } from './debounce.js';

const TYPING_DELAY = 200; // ms of quiet before the sentence is run, where a run cannot be interrupted

export function createControls(store, session) {
  const { dispatch } = store;
  const $ = (id) => document.getElementById(id);
  const dom = {
    sentence: $('sentence'), layer: $('layer'), head: $('head'), layerControl: $('layer-control'), headControl: $('head-control'),
    toy: $('toy-controls'), toyD: $('toy-d'), toyHeads: $('toy-heads'), toyKv: $('toy-kv'), toyCausal: $('toy-causal'),
    toySeed: $('toy-seed'), seedError: $('toy-seed-error'), examples: document.querySelector('.examples'), cancel: $('cancel'),
    sentenceLabel: document.querySelector('label[for="sentence"]'), stack: $('stack-control'), task: $('task'), taskControl: $('task-control'),
    alignment: $('view-alignment'), why: $('view-why'), rollout: document.querySelector('input[name="view"][value="rollout"]'),
  };
  const shown = { typed: null, sentence: null, examples: null, tasks: null }; // what the field sent, and what render() last drew

  const typed = session.interruptible ? () => sendSentence(dom.sentence.value) : debounce(() => sendSentence(dom.sentence.value), TYPING_DELAY);
  dom.sentence.addEventListener('input', typed);
  dom.sentence.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && session.busy) session.cancel();
    else if (event.key === 'Escape' && store.state.session.writing) session.stopWriting();
  });
  for (const input of document.querySelectorAll('input[type="radio"]')) {
    input.addEventListener('change', () => choose(input.name, input.value));
  }
  dom.layer.addEventListener('change', () => dispatch({ type: 'layer', value: dom.layer.value === 'all' ? 'all' : Number(dom.layer.value) }));
  dom.head.addEventListener('change', () => dispatch({ type: 'head', value: dom.head.value === 'all' ? 'all' : Number(dom.head.value) }));
  for (const input of [dom.toyD, dom.toyHeads, dom.toyKv, dom.toyCausal]) input.addEventListener('change', readToy);
  dom.toySeed.addEventListener('input', debounce(readToy, TYPING_DELAY));
  dom.cancel.addEventListener('click', () => session.cancel());
  // A T5 task's prefix replaces the one the sentence starts with, if any.
  dom.task.addEventListener('change', () => {
    const prefixes = Object.values(store.state.session.info?.taskPrefixes ?? {});
    const text = dom.sentence.value;
    const before = prefixes.filter((p) => text.startsWith(p)).sort((a, b) => b.length - a.length)[0] ?? '';
    const sentence = dom.task.value + text.slice(before.length);
    dom.sentence.value = sentence;
    sendSentence(sentence);
  });
  // The picker sits below the view, which stays where a reader expects it; this takes them there.
  $('model-change').addEventListener('click', () => {
    $('model').scrollIntoView({ block: 'center' });
    $('model-choice').focus({ preventScroll: true });
  });

  function sendSentence(text) {
    shown.typed = text;
    dispatch({ type: 'sentence', text });
  }

  function choose(group, value) {
    if (group === 'rolesMode') {
      dispatch({ type: 'roles-mode', value });
      const state = store.state;
      if (value === 'probes' && !state.result.measured.has(modelKey(state))) session.measure();
      return;
    }
    dispatch({ type: group, value });
  }

  /** Reads the toy controls; an invalid seed is marked and sends nothing. */
  function readToy() {
    const seed = Number(dom.toySeed.value);
    const valid = dom.toySeed.value !== '' && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff;
    dom.toySeed.setAttribute('aria-invalid', String(!valid));
    dom.seedError.hidden = valid;
    if (!valid) return;
    const kv = dom.toyKv.value === 'same' ? null : Number(dom.toyKv.value);
    dispatch({
      type: 'toy',
      toy: { dModel: Number(dom.toyD.value), numHeads: Number(dom.toyHeads.value), numKeyValueHeads: kv, causal: dom.toyCausal.checked, seed },
    });
  }

  function render(state) {
    const { settings, session: s } = state;
    // The field shows a sentence that came from elsewhere (a link, an example), never one it sent.
    if (settings.sentence !== shown.sentence) {
      shown.sentence = settings.sentence;
      if (settings.sentence !== shown.typed && settings.sentence !== dom.sentence.value) dom.sentence.value = settings.sentence;
    }
    for (const [group, value] of [['mode', settings.mode], ['stack', settings.stack], ['view', settings.view], ['ablation', settings.ablation],
      ['rolesMode', state.ui.rolesMode]]) {
      const input = document.querySelector(`input[name="${group}"][value="${value}"]`);
      if (input && !input.checked) input.checked = true;
    }
    renderToy(settings.toy, settings.mode === 'toy');
    const seq2seq = Boolean(s.info?.encoderDecoder);
    const label = settings.chat && s.info?.chat ? 'Your message (the model\'s chat template turns it into its prompt)'
      : seq2seq ? 'Source sentence (the encoder reads it; the decoder writes the target)' : 'Sentence';
    if (dom.sentenceLabel.textContent !== label) dom.sentenceLabel.textContent = label;
    renderChoices(state);
    renderSeq2seq(state);
    const examples = !seq2seq ? (s.info?.causal ? 'causal' : 'masked') : s.model.kind === 'builtin' && s.model.id === 'reverse' ? 'reverse' : 'source';
    if (examples !== shown.examples) renderExamples((shown.examples = examples));
  }

  /**
   * An encoder–decoder's controls: its attention's choice, the alignment view (which draws a
   * cross-attention), T5's tasks; the Why? view explains a one-stack model only, and rollout
   * follows one stack's layers.
   */
  function renderSeq2seq(state) {
    const { info } = state.session;
    const seq2seq = Boolean(info?.encoderDecoder);
    dom.stack.hidden = !seq2seq || state.settings.mode !== 'model';
    dom.alignment.hidden = !seq2seq;
    dom.why.hidden = seq2seq;
    dom.rollout.disabled = shownStack(state) === 'cross';
    dom.rollout.parentElement.title = dom.rollout.disabled ? 'Rollout follows one stack\'s layers; cross-attention reads the other sentence' : '';
    const tasks = Object.entries(info?.taskPrefixes ?? {});
    dom.taskControl.hidden = tasks.length === 0;
    if (tasks !== shown.tasks && JSON.stringify(tasks) !== JSON.stringify(shown.tasks)) {
      shown.tasks = tasks;
      dom.task.replaceChildren(new Option('none (no prefix)', ''), ...tasks.map(([task, prefix]) => new Option(`${task.replaceAll('_', ' ')}: “${prefix.trim()}”`, prefix)));
    }
    const sentence = state.settings.sentence;
    const chosen = tasks.map(([, p]) => p).filter((p) => sentence.startsWith(p)).sort((a, b) => b.length - a.length)[0] ?? '';
    setValue(dom.task, chosen);
  }

  function renderToy(toy, on) {
    dom.toy.hidden = !on;
    setValue(dom.toyD, toy.dModel);
    // Only head counts that divide d_model, and key/value heads that divide the heads, are offered.
    for (const option of dom.toyHeads.options) option.disabled = toy.dModel % Number(option.value) !== 0;
    setValue(dom.toyHeads, toy.numHeads);
    for (const option of dom.toyKv.options) {
      option.disabled = option.value !== 'same' && (Number(option.value) >= toy.numHeads || toy.numHeads % Number(option.value) !== 0);
    }
    setValue(dom.toyKv, toy.numKeyValueHeads ?? 'same');
    dom.toyCausal.checked = toy.causal;
    if (dom.toySeed.getAttribute('aria-invalid') !== 'true' && Number(dom.toySeed.value) !== toy.seed) dom.toySeed.value = String(toy.seed);
  }

  function renderChoices(state) {
    const { settings } = state;
    const info = state.session.info;
    const layers = settings.mode === 'toy' ? 1 : info ? stackLayers(info, shownStack(state)) : 1;
    const heads = settings.mode === 'toy' ? settings.toy.numHeads : state.session.info?.numHeads ?? 1;
    const layerChoices = Array.from({ length: layers }, (_, l) => [l, `${l + 1}`]);
    if (settings.view === 'grid' && layers > 1) layerChoices.push(['all', 'All layers']);
    setOptions(dom.layer, layerChoices, allLayersShown(state) ? 'all' : shownLayer(state));
    const headChoices = Array.from({ length: heads }, (_, h) => [h, `${h + 1}`]);
    if (settings.view === 'lines') headChoices.push(['all', 'All heads']);
    setOptions(dom.head, headChoices, shownHead(state));
    dom.layerControl.hidden = layers === 1;
    dom.headControl.hidden = !['head', 'lines', 'why'].includes(settings.view); // the Why? view maps one head's queries and keys
  }

  /** The example buttons for a kind of model's sentences (examples.js). */
  function renderExamples(kind) {
    dom.examples.dataset.kind = kind;
    dom.examples.replaceChildren(dom.examples.firstElementChild, ...EXAMPLES[dom.examples.dataset.kind].map((text) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = text;
      button.addEventListener('click', () => {
        dom.sentence.value = text;
        sendSentence(text);
      });
      return button;
    }));
  }

  return { render };
}

function setValue(select, value) {
  if (select.value !== String(value)) select.value = String(value);
}

function setOptions(select, choices, selected) {
  const same = select.options.length === choices.length && choices.every(([v, label], i) =>
    select.options[i].value === String(v) && select.options[i].text === label);
  if (!same) select.replaceChildren(...choices.map(([v, label]) => new Option(label, String(v))));
  setValue(select, selected);
}
