// The settings slice: what the reader chose, exactly what the URL encodes (url-state.js writes and
// reads it): the sentence, the model asked for, model or toy layer, the view, layer and head,
// the toy layer's sizes, the heads switched off, and a causal model's writing (its options, the
// ids it wrote after the sentence, and whether the sentence is a chat message), and what the Why?
// view explains (its position, token and against, and the corrupted prompt it patches from). Its reducer is its one writer. Choices keep
// their value when the model cannot show it (layer 9 of a 4-layer model): shownLayer and
// shownHead say what is on screen, and the URL holds that.
import { patched } from './store.js';
import { BUILTIN_MODEL, sameChoice } from './model-choice.js';
import { WRITE_DEFAULTS, fitWrite } from './writing.js';
import { STACKS } from '../../src/model/stacks.js';

/** The toy layer's sizes the page offers. */
export const TOY_D = [4, 8, 16, 32, 64, 128];
export const TOY_HEADS = [1, 2, 4, 8];

// The Why? view's choices: the position explained (null: the model's default, whyPosition), the
// token (empty: the top prediction) and the one against it (empty: none) as the reader typed
// them, and the corrupted prompt (null: the one the worker suggests).
const WHY = Object.freeze({ position: null, token: '', against: '', corrupted: null });

const INITIAL = Object.freeze({
  sentence: '',
  model: BUILTIN_MODEL, // the model asked for: the one on screen, or the one loading
  mode: 'model', // 'model' | 'toy'
  stack: 'encoder', // an encoder–decoder's attention shown: 'encoder' | 'decoder' | 'cross' (STACKS)
  view: 'grid', // a key of VIEWS
  layer: 1, // layer 2 has the sharpest heads (previous and next word): a telling first view
  allLayers: false, // the grid shows every layer (layer=all); `layer` stays for the other views
  head: 0, // a head index, or 'all' (lines view only)
  // numKeyValueHeads null: as many as numHeads, plain multi-head attention.
  toy: Object.freeze({ dModel: 8, numHeads: 2, numKeyValueHeads: null, causal: false, seed: 1 }),
  ablate: Object.freeze([]), // heads switched off, [{ layer, head, stack? }] in stack, layer then head order (stack: an encoder–decoder's, not 'encoder')
  ablation: 'zero', // what a switched-off head passes on: 'zero' | 'mean'
  write: WRITE_DEFAULTS, // Write's options: { maxNewTokens, temperature, topK, topP, seed }
  written: Object.freeze([]), // the ids the model wrote after the sentence, as the writing made them
  chat: false, // the sentence is a user's message, rendered by the model's chat template
  why: WHY,
});

export function settings(slice = INITIAL, action, state) {
  switch (action.type) {
    case 'start': // the page's first settings: the sentence in the field, then the URL's
      return applyUrl(patched(slice, { sentence: action.sentence }), action.url, state);
    case 'url':
      return applyUrl(slice, action.url, state);
    case 'sentence': // a new prompt: what was written after the old one goes, and the Why? view's position and corruption
      return action.text === slice.sentence ? slice
        : patched(slice, { sentence: action.text, written: INITIAL.written, why: Object.freeze({ ...slice.why, position: null, corrupted: null }) });
    case 'why':
      return patched(slice, { why: Object.freeze({ ...slice.why, ...action.value }) });
    case 'choose-token': // in the Why? view, the token chosen is the position explained
      return slice.view === 'why' ? patched(slice, { why: Object.freeze({ ...slice.why, position: action.index }) }) : slice;
    case 'chat':
      return patched(slice, { chat: action.value, written: slice.chat === action.value ? slice.written : INITIAL.written });
    case 'write-options':
      return patched(slice, { write: fitWrite(action.options, slice.write) });
    case 'write-start': // writing starts again after the sentence
      return patched(slice, { written: INITIAL.written });
    case 'write-step':
      return action.writeId === state.session.writing?.writeId ? patched(slice, { written: Object.freeze([...slice.written, action.step.id]) }) : slice;
    case 'view': // the alignment view draws the cross-attention
      return patched(slice, { view: action.value, ...(action.value === 'alignment' ? { stack: 'cross' } : {}) });
    case 'mode':
    case 'ablation':
    case 'stack':
      return patched(slice, { [action.type]: action.value });
    case 'layer':
      return action.value === 'all' ? patched(slice, { allLayers: true }) : patched(slice, { layer: action.value, allLayers: false });
    case 'head':
      return patched(slice, { head: action.value });
    case 'select-head': // a head chosen in the grid: the every-layer grid also names its layer
      return patched(slice, { view: 'head', head: action.head, ...(action.layer === null ? {} : { layer: action.layer }) });
    case 'toy':
      return patched(slice, { toy: fitToy(action.toy, slice.toy) });
    case 'ablate':
      return patched(slice, { ablate: ordered(action.heads) });
    case 'toggle-head': { // a head of action.stack, or of the attention shown
      const head = headOf(action.layer, action.head, action.stack ?? (state.session.info?.encoderDecoder ? slice.stack : 'encoder'));
      const same = (a) => a.layer === head.layer && a.head === head.head && stackOf(a) === stackOf(head);
      const off = slice.ablate.some(same);
      return patched(slice, { ablate: ordered(off ? slice.ablate.filter((a) => !same(a)) : [...slice.ablate, head]) });
    }
    case 'pick-model': // the reader chose a model: every head is on again, nothing is written (a link's stay, for its model)
      return patched(slice, { model: action.choice, ablate: INITIAL.ablate, written: INITIAL.written, why: WHY });
    case 'ready': // the worker's first model, or the one it loaded again after a restart
      if (action.info.fallback) return patched(slice, { model: BUILTIN_MODEL, written: INITIAL.written, chat: false });
      return sameChoice(slice.model, state.session.model) ? fitModel(slice, action.info) : slice;
    case 'loaded':
      return sameChoice(slice.model, action.choice) ? fitModel(slice, action.info) : slice;
    case 'load-failed': // the model on screen stays, and the URL names it again
      return action.loadId === state.session.loading?.loadId ? patched(slice, { model: state.session.model }) : slice;
    default:
      return slice;
  }
}

/** The settings a URL hash asks for (readUrlState's), over `slice`: what the hash leaves out stays. */
function applyUrl(slice, url, state) {
  const { sentence, mode, stack, view, layer, head, toy, model, ablate, ablation, write, written, chat, why } = url;
  const patch = {};
  if (sentence !== undefined) patch.sentence = sentence;
  // What was written belongs to its sentence and model: a link gives it, or it goes with them.
  if (written !== undefined) patch.written = Object.freeze(written);
  else if ((sentence !== undefined && sentence !== slice.sentence) || (model && !sameChoice(model, slice.model))) patch.written = INITIAL.written;
  if (chat !== undefined) patch.chat = chat;
  if (write) patch.write = fitWrite(write, slice.write);
  if (model && !sameChoice(model, slice.model)) {
    patch.model = model;
    // Heads switched off belong to their model: a link to another one that names none switches all on.
    if (ablate === undefined) patch.ablate = INITIAL.ablate;
  }
  if (mode !== undefined) patch.mode = mode;
  if (stack !== undefined) patch.stack = stack;
  else if (view === 'alignment') patch.stack = 'cross'; // the alignment view draws the cross-attention
  if (view !== undefined) patch.view = view;
  if (layer === 'all') patch.allLayers = true;
  else if (layer !== undefined) Object.assign(patch, { layer, allLayers: false });
  if (head !== undefined) patch.head = head;
  if (toy) {
    // A link without kv (all before there was one) means a head of keys and values for each query head.
    patch.toy = fitToy({ ...slice.toy, numKeyValueHeads: null, ...toy }, slice.toy);
  }
  if (ablate !== undefined) {
    // Heads beyond the model's are dropped: now for the model on screen, once it is ready for one loading.
    const info = state.session?.info;
    patch.ablate = ordered(info && sameChoice(patch.model ?? slice.model, state.session.model) ? heldHeads(ablate, info) : ablate);
  }
  if (ablation !== undefined) patch.ablation = ablation;
  // A link's Why? choices replace the ones on screen: what it leaves out is the default.
  if (why !== undefined) patch.why = Object.freeze({ ...WHY, ...why });
  else if (patch.sentence !== undefined && patch.sentence !== slice.sentence) patch.why = WHY;
  return patched(slice, patch);
}

/**
 * `toy` with the sizes the page offers: a d_model it does not offer keeps `before`'s, a head
 * count that does not divide d_model becomes 1, and key/value heads that do not divide the heads
 * become null (as many as the heads).
 */
export function fitToy(toy, before) {
  const dModel = TOY_D.includes(toy.dModel) ? toy.dModel : before.dModel;
  const offered = TOY_HEADS.includes(toy.numHeads) ? toy.numHeads : before.numHeads;
  const numHeads = dModel % offered === 0 ? offered : 1;
  const kv = toy.numKeyValueHeads;
  const numKeyValueHeads = Number.isInteger(kv) && kv >= 1 && kv < numHeads && numHeads % kv === 0 ? kv : null;
  const seed = Number.isInteger(toy.seed) && toy.seed >= 0 && toy.seed <= 0xffffffff ? toy.seed : before.seed;
  const fitted = { dModel, numHeads, numKeyValueHeads, causal: Boolean(toy.causal), seed };
  return Object.keys(fitted).every((k) => fitted[k] === before[k]) ? before : Object.freeze(fitted);
}

/**
 * The slice fitted to a model of `info`'s sizes: its switched-off heads cut to the model's; what
 * was written kept only for a model that writes (ids past its vocabulary are the worker's to
 * refuse); a chat only for a model with a template.
 */
function fitModel(slice, info) {
  const held = heldHeads(slice.ablate, info);
  return patched(slice, {
    ablate: held.length === slice.ablate.length ? slice.ablate : held,
    written: writes(info) ? slice.written : INITIAL.written,
    chat: slice.chat && info.chat,
    stack: info.encoderDecoder ? slice.stack : INITIAL.stack,
  });
}

/** Whether a model of `info` writes: a causal LM with its head, or an encoder–decoder. */
export function writes(info) {
  return Boolean(info && ((info.causal && info.hasLmHead) || info.encoderDecoder));
}

/** An ablate entry: an encoder's (or a one-stack model's) head has no stack. */
const headOf = (layer, head, stack) => Object.freeze(stack === 'encoder' ? { layer, head } : { layer, head, stack });

/** An ablate entry's stack. */
export const stackOf = (entry) => entry.stack ?? 'encoder';

/** How many layers a model of `info` has in `stack`: an encoder–decoder's decoder and cross-attention have its decoder's. */
export function stackLayers(info, stack) {
  return stack !== 'encoder' && info.encoderDecoder ? info.numDecoderLayers : info.numLayers;
}

/** The heads of `ablate` that a model of `info`'s sizes has. */
function heldHeads(ablate, info) {
  return ablate.filter((a) => (stackOf(a) === 'encoder' || info.encoderDecoder) && a.layer < stackLayers(info, stackOf(a)) && a.head < info.numHeads);
}

function ordered(heads) {
  return Object.freeze([...heads].sort((a, b) => STACKS.indexOf(stackOf(a)) - STACKS.indexOf(stackOf(b)) || a.layer - b.layer || a.head - b.head));
}

/** The attention on screen: an encoder–decoder's chosen stack, else 'encoder' (a one-stack model's only one). */
export function shownStack(state) {
  return state.settings.mode === 'model' && state.session.info?.encoderDecoder ? state.settings.stack : 'encoder';
}

/**
 * The heads switched off in the attention on screen, [{ layer, head }]: a one-stack model's list
 * itself, an encoder–decoder's cut to its stack (the same array while the list and stack stay,
 * so the views compare it by identity).
 */
export function shownAblated(state) {
  const { ablate } = state.settings;
  if (!state.session.info?.encoderDecoder) return ablate;
  const stack = shownStack(state);
  const held = ablatedByStack.get(ablate) ?? {};
  held[stack] ??= Object.freeze(ablate.filter((a) => stackOf(a) === stack));
  ablatedByStack.set(ablate, held);
  return held[stack];
}
const ablatedByStack = new WeakMap(); // an ablate list → { stack: its heads in that stack }

/** How many layers the attention on screen has (the toy has one). */
function layersShown(state) {
  const info = state.session.info;
  return state.settings.mode === 'toy' ? 1 : info ? stackLayers(info, shownStack(state)) : 1;
}

/** The layer on screen: the chosen one, within the layers there are (the toy has one). */
export function shownLayer(state) {
  return Math.min(state.settings.layer, layersShown(state) - 1);
}

/** Whether the grid shows every layer. */
export function allLayersShown(state) {
  return state.settings.allLayers && state.settings.view === 'grid' && layersShown(state) > 1;
}

/** The head on screen: the chosen one within the layer's heads; 'all' only in the lines view. */
export function shownHead(state) {
  const { head, view, mode, toy } = state.settings;
  if (head === 'all') return view === 'lines' ? 'all' : 0;
  const heads = mode === 'toy' ? toy.numHeads : state.session.info?.numHeads ?? head + 1;
  return Math.min(head, heads - 1);
}
