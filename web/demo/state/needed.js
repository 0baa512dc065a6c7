// What the page still needs from its worker, as pure functions of the state: the session asks
// for exactly this, once the request in flight has settled, so the latest settings always win and
// an answer to older ones is dropped. Tested in Node (tests/js/page/needed.test.js).
import { sameChoice } from './model-choice.js';
import { allLayersShown, shownHead, shownLayer, shownStack, stackLayers, writes } from './settings.js';
import { OVERVIEW_SIZE, summaryKey } from '../../src/views/view-data.js';
import { textPrint } from '../text-print.js';

/**
 * The inputs a run depends on, as one string: the sentence (its print), model or toy layer (with
 * its sizes), the model made ready (counted, so a model loaded again is new), the heads switched
 * off, whether the sentence is a chat message and what was written after it, and an
 * encoder–decoder's attention on screen (the worker answers another from the run it keeps).
 */
export function inputsKey(state) {
  const { sentence, mode, toy, ablate, ablation, chat, written } = state.settings;
  const toyMode = mode === 'toy';
  const off = toyMode ? [] : ablate;
  return JSON.stringify([textPrint(sentence), mode, toyMode ? toy : null, state.session.models, off, off.length ? ablation : null,
    !toyMode && chat, toyMode ? [] : written, shownStack(state)]);
}

/**
 * Whether the rows on screen predict the next token, as a causal LM's do: an encoder–decoder's
 * decoder and cross-attention rows predict the next target token, its encoder's nothing.
 */
export function predictsNext(state) {
  const info = state.session.info;
  return Boolean(info?.causal || (info?.encoderDecoder && shownStack(state) !== 'encoder'));
}

/** The key of what the Why? view explains ({ position, token, against }) in a run's `why`. */
export const whyKey = ({ position, token, against }) => JSON.stringify([position, token, against]);

/** The key of the head whose query–key map the Why? view draws, in a run's `queryKeys`. */
export const queryKeysKey = ({ layer, head }) => `${layer}.${head}`;

/** Whether the page can write now: a model that writes on screen with its run shown whole, and nothing in flight. */
export function canWrite(state) {
  const { session, settings, result } = state;
  const run = result.run;
  return Boolean(writes(session.info) && settings.mode === 'model' && !session.writing && !session.inFlight &&
    run && run.key === inputsKey(state) && !run.truncated);
}

/** The inputs key of `state` with `written` as the writing's ids. */
export function keyWith(state, written) {
  return inputsKey({ ...state, settings: { ...state.settings, written } });
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
 * sentence is empty, the model is writing (each step brings its own rows; what else the view
 * shows is asked once it ends), or these very inputs were stopped or failed (the reader changes
 * them to try again). A run is { key, text, toy, fresh, layers, overview, summary, trace, at, ablate?,
 * ablation?, chat?, written?, steps?, stream? } (worker/messages.js's RunRequest, plus the key): what the view on screen draws and
 * the result lacks (the weights of its layer, the model view's thumbnails, an average or rollout, the full
 * trace of the layer the four-steps view shows, the Why? view's parts of a logit, logit lens and
 * query–key map), and a causal model's predictions at the chosen token;
 * a fresh run for a view that draws layers' weights has them sent as they are computed (`stream`).
 */
export function needed(state) {
  return state.session.writing ? null : lacking(state);
}

/** What needed() asks for, whether or not the model is writing: what the result on screen lacks. */
export function lacking(state) {
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
  // The model view draws the weights themselves when the page holds every layer of a short text,
  // or is being sent them as they are computed (a streamed run).
  const everyLayer = run && Math.max(run.tokens.length, run.keyTokens?.length ?? 0) <= OVERVIEW_SIZE &&
    (run.streamed || run.layers.filter(Boolean).length === stackLayers(session.info, shownStack(state)));
  const overview = allLayersShown(state) && !run?.overview && !everyLayer;
  const drawsWeights = ['grid', 'head', 'lines', 'alignment'].includes(view); // a layer's weights, or every layer's
  const weights = drawsWeights && !allLayersShown(state) && !run?.layers[layer];
  // The average and rollout views draw one matrix the worker computes: of the layer, or up to it.
  const summary = ['average', 'rollout'].includes(view) && !run?.summaries.has(summaryKey(view, layer)) ? { kind: view, layer } : null;
  const trace = view === 'steps' && run?.traced !== layer ? layer : null;
  const next = predictsNext(state);
  const at = next ? predictedAt(state) : null;
  const predicted = !run?.hasLmHead || !next ||
    (run.nextTokens.has(run.tokens.length - 1) && (at === null || run.nextTokens.has(at)));
  // A written text brings the strip of its steps; one grown by a writing has them, and lacks what
  // a fresh answer brings (head roles, the other layers).
  const { written, chat } = settings;
  const steps = written.length > 0 && !run?.steps;
  // The Why? view: what it explains, and the head whose queries and keys it maps.
  const { position, token, against } = settings.why;
  const why = view === 'why' && run?.why?.key !== whyKey(settings.why) ? { position, token, against } : null;
  const head = { layer, head: shownHead(state) };
  const queryKeys = view === 'why' && run?.queryKeys?.key !== queryKeysKey(head) ? head : null;
  const fresh = !run || Boolean(run.partial);
  if (!fresh && !overview && !weights && summary === null && trace === null && predicted && !steps && !why && !queryKeys) return null;
  return {
    key, text, toy: null, fresh, layers: weights ? [layer] : [], overview, summary, trace, at, ablate: settings.ablate, ablation: settings.ablation,
    chat, written, steps, stream: fresh && drawsWeights, why, queryKeys, stack: shownStack(state),
  };
}

/**
 * Whether the run on screen fits the inputs and holds what the view draws (its layer's weights,
 * the model view's thumbnails, an average or rollout, a trace), as it does while the model writes.
 */
export function drawable(state) {
  const run = state.result.run;
  if (!run || run.key !== inputsKey(state)) return false;
  const asked = lacking(state);
  return asked === null || (asked.toy === null && !asked.overview && asked.layers.length === 0 && asked.summary === null && asked.trace === null &&
    !asked.why && !asked.queryKeys);
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
