// What <multihead-view>'s attributes ask for, read and checked: the model, the view, the layer,
// the heads and the height. Plain functions of the attribute values, so they run (and are tested)
// without a DOM; the element hands in what needs one (its base URL, CSS length parsing).
import { DEFAULT_HUB_URL, hubBase } from '../loading/hub.js';
import { sourceName } from '../loading/source-name.js';
import { STACKS } from '../model/stacks.js';

// Characters of sentence the element runs, and a link to the page keeps: a tutorial's sentence is
// far shorter, and tokenizing a long paste on the main thread would freeze the host page for seconds.
export const MAX_SENTENCE = 2000;
// The tallest frame the element draws. Browsers accept lengths such as 1e20px and clamp them
// silently; a taller view than this is a typo, not a layout.
const MAX_HEIGHT = 100000;
// The views the element shows; the page's average and rollout views are not among them yet.
const ELEMENT_VIEWS = ['grid', 'head', 'lines', 'steps', 'why', 'alignment'];
// Tokens the element writes of an encoder–decoder's target when no target attribute gives it.
export const WRITTEN_TARGET = 64;
// Characters of a token or against attribute: one token is far shorter.
const MAX_TOKEN = 100;

/**
 * The model attribute as { builtin } (a built-in model's name: absent or empty is "default"),
 * { hub, hubUrl } (a Hub id) or { url } (a folder URL made absolute against `baseUrl`, so "./m/"
 * and "/m/" share when they are the same folder), as source-name.js tells them apart. hub-url must
 * be http(s).
 */
export function modelSource(value, hubUrl, baseUrl) {
  const named = sourceName(value?.trim() || 'default', { builtins: true });
  if (named.kind === 'builtin') return { builtin: named.name };
  if (named.kind !== 'hub') return { url: new URL(named.text, baseUrl).href };
  // hubBase refuses what is not a plain http(s) URL, and spells the default Hub one way.
  try {
    return { hub: named.id, hubUrl: hubBase(hubUrl?.trim() || DEFAULT_HUB_URL) };
  } catch (error) {
    throw new TypeError(error.message.replace(/^hubUrl/, 'hub-url'));
  }
}

/**
 * The view, layer, heads (from 0) and height `attributes` ({ view, layer, head, theme, height },
 * each a string or null) ask for, for a model of `layers` layers of `heads` heads; throws naming a
 * bad one. `css`: { supports(height) → whether it is a CSS height, pixels(height) → its pixels }.
 */
export function readChoice(attributes, layers, heads, css) {
  const view = attributes.view ?? 'grid';
  if (!ELEMENT_VIEWS.includes(view)) throw new RangeError(`view must be grid, head, lines, steps, why or alignment, got "${view}"`);
  const layer = counted('layer', attributes.layer ?? '1', layers);
  const headText = attributes.head?.trim() || '1';
  const list = headText === 'all'
    ? Array.from({ length: heads }, (_, h) => h)
    : headText.split(/[\s,]+/).map((part) => counted('head', part, heads));
  if (list.length > 1 && view !== 'lines') throw new RangeError(`several heads ("${headText}") need view="lines"; the ${view} view shows one`);
  // The palettes are chosen by CSS ([theme="dark"]); any other value would silently mean light.
  const theme = attributes.theme ?? '';
  if (!['', 'light', 'dark', 'auto'].includes(theme)) throw new RangeError(`theme must be light, dark or auto, got "${theme}"`);
  return { view, layer, heads: list, height: readHeight(attributes.height, css) };
}

/**
 * What the why view explains (attributes { position, token, against }, each a string or null) for
 * a text of `n` tokens: the position from 0 (null: the model's default), and the token and the one
 * against it as given ('' when absent); throws naming a bad one.
 */
export function readWhy(attributes, n) {
  const position = attributes.position === null || attributes.position.trim() === '' ? null : counted('position', attributes.position, n);
  const [token, against] = ['token', 'against'].map((name) => {
    const text = attributes[name] ?? '';
    if (text.length > MAX_TOKEN) throw new RangeError(`${name} must be one token, not ${text.length} characters`);
    return text;
  });
  return { position, token, against };
}

/**
 * An encoder–decoder's attention the stack attribute asks for (absent: 'cross' for the alignment
 * view, else 'encoder'); a one-stack model takes none. Throws naming a bad one.
 */
export function readStack(value, view, encoderDecoder) {
  if (!encoderDecoder) {
    if (value !== null && value !== 'encoder') throw new RangeError(`stack="${value}" is an encoder–decoder's (T5, BART, Marian); this model has one stack of layers`);
    if (view === 'alignment') throw new RangeError('view="alignment" draws an encoder–decoder\'s cross-attention; this model has none');
    return 'encoder';
  }
  const stack = value ?? (view === 'alignment' ? 'cross' : 'encoder');
  if (!STACKS.includes(stack)) throw new RangeError(`stack must be encoder, decoder or cross, got "${stack}"`);
  if (view === 'why') throw new RangeError('view="why" explains a one-stack model\'s prediction; an encoder–decoder\'s is not explained yet');
  return stack;
}

function counted(name, text, count) {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || value < 1 || value > count) {
    throw new RangeError(`${name} must be a whole number from 1 to ${count}${name === 'head' ? ', a list of them, or "all"' : ''}, got "${text}"`);
  }
  return value - 1;
}

/** A height attribute as CSS: a number is pixels; absent is "as tall as the view". */
function readHeight(value, css) {
  if (value === null || value === undefined || value.trim() === '') return '';
  const number = /^\s*(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value) ? Number(value) : null;
  const text = number === null ? value.trim() : `${number}px`;
  if (!css.supports(text)) throw new RangeError(`height must be a CSS length such as 400 or 30em, got "${value}"`);
  // A length the page cannot resolve now (auto, or inside a display: none subtree) is let through.
  if ((number ?? css.pixels(text)) > MAX_HEIGHT) {
    throw new RangeError(`height must be at most ${MAX_HEIGHT} pixels (a number, or a CSS length such as 30em), got "${value}"`);
  }
  return text;
}
