// The page's state in its URL, after the #, so a link or an iframe opens one precise view:
// #sentence=The+cat+sat.&view=head&layer=2&head=3 (layer and head counted from 1, as on the page;
// head=all for every head in the lines view). In the toy mode the toy layer's settings follow:
// &mode=toy&d=16&heads=4&causal=1&seed=7, and &kv=2 when its 4 query heads share 2 key/value heads
// (left out: one each). The grid of every layer is layer=all. A Hub model is
// &model=gpt2 (or owner/name; model=default and model=causal are the built-in models, whose names
// win over Hub ids of the same spelling, as in the element's model attribute): only a valid Hub id is
// read, so a link can name a model but never a URL to fetch; &revision=step1000 names a Hub model's
// branch, tag or commit (left out for main). Heads switched off are
// &ablate=2.1,2.4 (layer.head, counted from 1; an encoder–decoder's decoder and cross heads are
// d2.1 and c2.1) and &ablation=mean (zero when left out); the page drops heads its model does not
// have. An encoder–decoder's attention on screen is &stack=decoder or &stack=cross (left out: encoder). A causal model's writing is &out=464,2068,… (the ids it
// wrote after the sentence, at most 4096), with Write's options when they are not the defaults:
// &new=64&temp=0.8&topk=40&topp=0.95&wseed=7, and &chat=1 when the sentence is a chat message
// through the model's template. The Why? view (view=why) adds what it explains when it is not the
// default: &pos=12 (the position, counted from 1), &token=%20William and &against=%20James (each one
// token, as typed), and &corrupt=… (the corrupted prompt it patches from, cut as the sentence is).
// Values that make no sense are ignored, not errors:
// a link typed by hand should still open the page. A link holds at most the first 2000
// characters of the sentence, both ways: browsers refuse URLs of a few megabytes, and a 1 MB paste
// is six million characters once percent-encoded.
import { MAX_SENTENCE } from '../src/element/attributes.js';
import { parseHubId } from '../src/loading/hub.js';
import { hubModel } from './state/model-choice.js';
import { sourceName } from '../src/loading/source-name.js';
import { VIEWS } from '../src/views/views.js';
import { WRITE_DEFAULTS } from './state/writing.js';
import { STACKS } from '../src/model/stacks.js';

const MODES = ['model', 'toy'];
const STACK_LETTERS = { '': 'encoder', d: 'decoder', c: 'cross' }; // an ablated head's prefix in a link
const ABLATIONS = ['zero', 'mean'];
// A revision a link may name: a branch, tag or commit as the Hub spells them (step143000, v1.0, a
// 40-digit hash), never a path that could leave the model's folder.
export const REVISION = /^(?!\.\.?$)[\w.-]{1,96}$/;
const MAX_ABLATED = 1024; // heads a link may switch off: more than any model this page loads has
const MAX_WRITTEN = 4096; // ids a link may hold: more than any model this page loads takes
const WRITTEN = new RegExp(`^(?:[0-9]{1,7}(?:,[0-9]{1,7}){0,${MAX_WRITTEN - 1}})?$`); // "464,2068,…", or empty
// Write's options in a link: { name in the URL: option }.
const WRITE_PARAMS = { new: 'maxNewTokens', temp: 'temperature', topk: 'topK', topp: 'topP', wseed: 'seed' };

/**
 * The part of `sentence` a link holds: at most the element's MAX_SENTENCE characters, so the
 * element snippet of any link holds a sentence the element takes; never half an emoji.
 */
export function linkedSentence(sentence) {
  if (sentence.length <= MAX_SENTENCE) return sentence;
  const last = sentence.charCodeAt(MAX_SENTENCE - 1);
  // Cutting after the first half of a surrogate pair would leave a lone one, which a URL turns into U+FFFD.
  return sentence.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_SENTENCE - 1 : MAX_SENTENCE);
}

/** The state a URL hash asks for: only the fields it gives, each checked. */
export function readUrlState(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const state = {};
  const sentence = params.get('sentence');
  if (sentence !== null) state.sentence = linkedSentence(sentence);
  if (Object.hasOwn(VIEWS, params.get('view') ?? '')) state.view = params.get('view');
  if (MODES.includes(params.get('mode'))) state.mode = params.get('mode');
  if (STACKS.includes(params.get('stack'))) state.stack = params.get('stack');
  const layer = params.get('layer') === 'all' ? 'all' : counted(params.get('layer'));
  if (layer !== null) state.layer = layer;
  const model = modelChoice(params.get('model'), params.get('revision'));
  if (model !== null) state.model = model;
  const head = params.get('head') === 'all' ? 'all' : counted(params.get('head'));
  if (head !== null) state.head = head;
  const ablate = ablatedHeads(params.get('ablate'));
  if (ablate !== null) state.ablate = ablate;
  if (ABLATIONS.includes(params.get('ablation'))) state.ablation = params.get('ablation');
  const toy = toySettings(params);
  if (Object.keys(toy).length > 0) state.toy = toy;
  const out = params.get('out');
  if (out !== null && WRITTEN.test(out)) state.written = out ? out.split(',').map(Number) : [];
  const write = {};
  for (const [name, option] of Object.entries(WRITE_PARAMS)) {
    const text = params.get(name);
    if (text !== null && /^[0-9]{1,10}(?:\.[0-9]{1,6})?$/.test(text)) write[option] = Number(text); // the settings check each one's range
  }
  if (Object.keys(write).length > 0) state.write = write;
  if (['0', '1'].includes(params.get('chat'))) state.chat = params.get('chat') === '1';
  const why = whyChoices(params);
  if (why) state.why = why;
  return state;
}

// The Why? view's choices a URL gives ({ position, token, against, corrupted }, each only when
// given), or null when it gives none. A token longer than MAX_TOKEN characters is no one token.
const MAX_TOKEN = 100;
function whyChoices(params) {
  const why = {};
  const position = counted(params.get('pos'));
  if (position !== null) why.position = position;
  for (const [name, field] of [['token', 'token'], ['against', 'against']]) {
    const text = params.get(name);
    if (text !== null && text.length <= MAX_TOKEN) why[field] = text;
  }
  const corrupted = params.get('corrupt');
  if (corrupted !== null) why.corrupted = linkedSentence(corrupted);
  return Object.keys(why).length ? why : null;
}

// "2.1,2.4,c1.2" → [{ layer: 1, head: 0 }, { layer: 1, head: 3 }, { layer: 0, head: 1, stack: 'cross' }],
// in stack (encoder, decoder, cross), layer then head order, each once; "" → []; anything that is
// not such a list → null.
function ablatedHeads(text) {
  if (text === null) return null;
  if (text === '') return [];
  const parts = text.split(',');
  if (parts.length > MAX_ABLATED || !parts.every((part) => /^[dc]?[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}$/.test(part))) return null;
  const heads = new Map(parts.map((part) => {
    const stack = STACK_LETTERS[/^[dc]/.test(part) ? part[0] : ''];
    const [layer, head] = part.replace(/^[dc]/, '').split('.').map((v) => Number(v) - 1);
    return [part, stack === 'encoder' ? { layer, head } : { layer, head, stack }];
  }));
  const order = (a) => STACKS.indexOf(a.stack ?? 'encoder');
  return [...heads.values()].sort((a, b) => order(a) - order(b) || a.layer - b.layer || a.head - b.head);
}

// The toy settings a URL gives, as whole numbers and a flag; whether the page offers that
// d_model or head count is for the page to say.
function toySettings(params) {
  const toy = {};
  const whole = (name) => (/^[0-9]{1,10}$/.test(params.get(name) ?? '') ? Number(params.get(name)) : null);
  const [dModel, numHeads, kv, seed] = [whole('d'), whole('heads'), whole('kv'), whole('seed')];
  if (dModel !== null) toy.dModel = dModel;
  if (numHeads !== null) toy.numHeads = numHeads;
  if (kv !== null) toy.numKeyValueHeads = kv;
  if (seed !== null && seed <= 0xffffffff) toy.seed = seed;
  if (['0', '1'].includes(params.get('causal'))) toy.causal = params.get('causal') === '1';
  return toy;
}

// "gpt2" → { kind: 'hub', id: 'gpt2' } (with its revision, when `revision` is a plausible branch,
// tag or commit name other than main), "default" or "causal" → a built-in model; anything else → null.
function modelChoice(text, revision) {
  if (text === null) return null;
  const named = sourceName(text, { builtins: true });
  if (named.kind === 'builtin') return { kind: 'builtin', id: named.name };
  if (named.kind !== 'hub') return null;
  try {
    parseHubId(text);
  } catch {
    return null;
  }
  return hubModel(text, revision !== null && REVISION.test(revision) ? revision : 'main');
}

/**
 * The hash for a state: what readUrlState reads back (the sentence cut as linkedSentence cuts it).
 * `model` is a Hub id or a built-in model's name, or undefined for the default model (which the
 * hash leaves out); `revision` a Hub model's, undefined for main.
 */
export function urlHash({ sentence, view, mode, stack = 'encoder', layer, head, toy, model, revision, ablate = [], ablation = 'zero', write = WRITE_DEFAULTS,
  written = [], chat = false, why = null }) {
  const params = new URLSearchParams({ sentence: linkedSentence(sentence), view, mode, layer: layer === 'all' ? 'all' : String(layer + 1) });
  if (stack !== 'encoder') params.set('stack', stack);
  params.set('head', head === 'all' ? 'all' : String(head + 1));
  if (mode === 'toy') {
    params.set('d', String(toy.dModel));
    params.set('heads', String(toy.numHeads));
    if ((toy.numKeyValueHeads ?? toy.numHeads) !== toy.numHeads) params.set('kv', String(toy.numKeyValueHeads));
    params.set('causal', toy.causal ? '1' : '0');
    params.set('seed', String(toy.seed));
  }
  if (model !== undefined) params.set('model', model);
  if (model !== undefined && revision !== undefined) params.set('revision', revision);
  if (ablate.length > 0) {
    const letter = (stack) => Object.keys(STACK_LETTERS).find((k) => STACK_LETTERS[k] === (stack ?? 'encoder'));
    params.set('ablate', ablate.map(({ layer: l, head: h, stack }) => `${letter(stack)}${l + 1}.${h + 1}`).join(','));
    if (ablation !== 'zero') params.set('ablation', ablation);
  }
  if (chat) params.set('chat', '1');
  for (const [name, option] of Object.entries(WRITE_PARAMS)) if (write[option] !== WRITE_DEFAULTS[option]) params.set(name, String(write[option]));
  // The ids were written after the whole sentence: a link that cuts it cannot keep them.
  if (written.length > 0 && linkedSentence(sentence) === sentence) params.set('out', written.join(','));
  if (view === 'why' && why) {
    if (why.position !== null) params.set('pos', String(why.position + 1));
    if (why.token) params.set('token', why.token);
    if (why.against) params.set('against', why.against);
    if (why.corrupted !== null) params.set('corrupt', linkedSentence(why.corrupted));
  }
  return `#${params}`;
}

// "3" → 2 (counted from 1 in the URL, from 0 in the page); anything else → null.
function counted(text) {
  if (text === null || !/^[1-9][0-9]{0,3}$/.test(text)) return null;
  return Number(text) - 1;
}
