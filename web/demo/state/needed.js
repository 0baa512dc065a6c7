// What the page still needs from its worker, as pure functions of the state: the session asks
// for exactly this, once the request in flight has settled, so the latest settings always win and
// an answer to older ones is dropped. Tested in Node (tests/js/page/needed.test.js).
import { sameChoice } from './model-choice.js';
import { allLayersShown, shownLayer } from './settings.js';
import { OVERVIEW_SIZE, summaryKey } from '../../src/views/view-data.js';

/**
 * The inputs a run depends on, as one string: the sentence, model or toy layer (with its sizes),
 * the model made ready (counted, so a model loaded again is new), and the heads switched off.
 */
export function inputsKey(state) {
  const { sentence, mode, toy, ablate, ablation } = state.settings;
  const off = mode === 'toy' ? [] : ablate;
  return JSON.stringify([sentence, mode, mode === 'toy' ? toy : null, state.session.models, off, off.length ? ablation : null]);
}

/** Whether an answer to `asked` still fits the settings: an older one is dropped. */
export function answerFits(state, asked) {
  return asked.key === inputsKey(state);
}

/** The token whose next-token predictions show beside the last one's: pointed at, else focused, else chosen, else none. */
export function predictedAt(state) {
  return state.ui.pointed ?? state.ui.focused ?? state.ui.at;
}

/**
 * The run the page needs, or null when the result holds all it shows, no model is ready, the
 * sentence is empty, or these very inputs were stopped or failed (the reader changes them to
 * try again). A run is { key, text, toy, fresh, layers, overview, summary, trace, at, ablate?,
 * ablation? } (worker/messages.js's RunRequest, plus the key): what the view on screen draws and
 * the result lacks (the weights of its layer, the model view's thumbnails, an average or rollout, the full
 * trace of the layer the four-steps view shows), and a causal model's predictions at the chosen token.
 */
export function needed(state) {
  const { settings, session } = state;
  if (!session.info || settings.sentence.trim() === '') return null;
  const key = inputsKey(state);
  if (session.stopped?.key === key || session.failed?.key === key) return null;
  const run = state.result.run?.key === key ? state.result.run : null;
  const text = settings.sentence;
  if (settings.mode === 'toy') {
    const { numKeyValueHeads, ...toy } = settings.toy;
    return run ? null : {
      key, text, toy: { ...toy, numKeyValueHeads: numKeyValueHeads ?? toy.numHeads }, fresh: true, layers: [], overview: false, summary: null, trace: 0, at: null,
    };
  }
  const { view } = settings;
  const layer = shownLayer(state);
  // The model view draws the weights themselves when the page holds every layer of a short text.
  const everyLayer = run && run.tokens.length <= OVERVIEW_SIZE && run.layers.filter(Boolean).length === session.info.numLayers;
  const overview = allLayersShown(state) && !run?.overview && !everyLayer;
  const weights = ['grid', 'head', 'lines'].includes(view) && !allLayersShown(state) && !run?.layers[layer];
  // The average and rollout views draw one matrix the worker computes: of the layer, or up to it.
  const summary = ['average', 'rollout'].includes(view) && !run?.summaries.has(summaryKey(view, layer)) ? { kind: view, layer } : null;
  const trace = view === 'steps' && run?.traced !== layer ? layer : null;
  const at = session.info.causal ? predictedAt(state) : null;
  const predicted = !run?.hasLmHead || !session.info.causal ||
    (run.nextTokens.has(run.tokens.length - 1) && (at === null || run.nextTokens.has(at)));
  if (run && !overview && !weights && summary === null && trace === null && predicted) return null;
  return {
    key, text, toy: null, fresh: !run, layers: weights ? [layer] : [], overview, summary, trace, at, ablate: settings.ablate, ablation: settings.ablation,
  };
}

/**
 * The model to start loading, or null: the one the settings ask for, once the worker is ready,
 * when it is neither on screen nor loading already.
 */
export function modelToLoad(state) {
  const { info, loading, model } = state.session;
  if (!info) return null;
  return sameChoice(state.settings.model, loading?.choice ?? model) ? null : state.settings.model;
}
