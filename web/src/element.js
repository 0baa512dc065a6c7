// <multihead-view>: one view of a model's attention, for pages we do not control. Importing this
// module registers the element (the package's other modules register nothing). Its markup and
// styles live in a shadow root, so the host page's CSS cannot reach in and ours cannot leak out.
// Every element on a page shares one engine and one instance of each model. It runs the model on
// the main thread: a tutorial-sized sentence takes a few milliseconds, and the page's own worker
// would need a second file to host, which some authors cannot serve. It is for browsers only.
// On the main thread nothing can stop a tokenizer that never returns (a hostile tokenizer.json):
// the loader's pattern check and the 2000-character cap below are its only defences.
// The model attribute names a built-in model (default, causal), a Hub id (gpt2, owner/name) or a
// folder URL; elements asking for the same
// model share one download and one copy in memory, which is freed (or its download stopped) once
// no element on the page has used it for a few seconds. It keeps every layer's attention weights,
// and computes a layer's full trace only for the four-steps view's layer.
import { loadEngine } from './engine.js';
import { DEFAULT_HUB_URL, hubBase, isHubId } from './hub.js';
import { BUILTIN_MODELS } from './model-files.js';
import { attentionJson, headsOnScreen, heatmapPng, heatmapSvg } from './views/export.js';
import { VIEWS_CSS, palette } from './views/styles.js';
import { el } from './views/dom.js';
import { attentionLayers, tracedLayer, truncationNote, viewData } from './views/view-data.js';
import { VIEWS } from './views/views.js';

const ATTRIBUTES = ['sentence', 'layer', 'head', 'view', 'model', 'hub-url', 'theme', 'height'];
// Characters of sentence the element runs: a tutorial's sentence is far shorter, and tokenizing a
// long paste on the main thread would freeze the host page for seconds.
const MAX_SENTENCE = 2000;
// The tallest frame the element draws. Browsers accept lengths such as 1e20px and clamp them
// silently; a taller view than this is a typo, not a layout.
const MAX_HEIGHT = 100000;

const ELEMENT_CSS = `
:host { display: block; ${palette('light')} }
:host([theme="dark"]) { ${palette('dark')} }
@media (prefers-color-scheme: dark) { :host([theme="auto"]) { ${palette('dark')} } }
:host([hidden]) { display: none; }
/* A page's rules on the host element itself (say * { letter-spacing: 3px }) beat :host and would be
   inherited inside: the frame starts from initial values. Custom properties pass, so a page can
   still set --mh-* colours on purpose. */
.frame { all: initial; display: block; box-sizing: border-box; padding: 8px; overflow: auto; color: var(--mh-fg);
  background: var(--mh-bg); font: 14px/1.4 system-ui, sans-serif; color-scheme: inherit; }
.status { margin: 0 0 6px; color: var(--mh-muted); font-size: 13px; }
.status:empty { display: none; }
.probe { position: absolute; visibility: hidden; width: 0; }
:host([data-state="error"]) .status { color: var(--mh-warn); }
`;

let sheet = null;

/**
 * Gives a shadow root the element's CSS: one constructed sheet shared by every element, which a
 * host page's Content-Security-Policy allows where it forbids inline <style> ('unsafe-inline').
 * Browsers without constructed sheets (Safari before 16.4) get a <style> element instead.
 */
function adoptStyles(root) {
  if (!('adoptedStyleSheets' in root)) {
    root.append(el('style', null, ELEMENT_CSS + VIEWS_CSS));
    return;
  }
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(ELEMENT_CSS + VIEWS_CSS);
  }
  root.adoptedStyleSheets = [sheet];
}

// Shared by every element on the page: one engine, and one loaded model per source, with the
// elements using it. A model no element uses is freed after RELEASE_MS, not at once, so an element
// moved in the page (disconnected, then connected again) keeps its model.
const shared = { engine: null, models: new Map() }; // key → { loading, users: Set, controller, timer }
const RELEASE_MS = 5000;

/** The model `source` names (modelSource's) for `user`, loaded once for every element that names it. */
function sharedModel(source, user) {
  const key = JSON.stringify(source);
  releaseModel(user, key);
  let entry = shared.models.get(key);
  if (!entry) {
    shared.engine ??= loadEngine({ threads: 1 }).catch((error) => {
      shared.engine = null; // let a later element try again
      throw error;
    });
    const controller = new AbortController();
    const options = { signal: controller.signal, ...(source?.hub ? { hubUrl: source.hubUrl } : {}) };
    const loading = shared.engine.then((engine) => engine.loadModel(source.builtin ? source : source.hub ?? source.url, options));
    entry = { loading, users: new Set(), controller, timer: 0 };
    loading.catch(() => shared.models.get(key) === entry && shared.models.delete(key));
    shared.models.set(key, entry);
  }
  clearTimeout(entry.timer);
  entry.users.add(user);
  return entry.loading;
}

/** `user` no longer uses its models (but the one keyed `keep`); one that nobody uses is freed soon. */
function releaseModel(user, keep = null) {
  for (const [key, entry] of shared.models) {
    if (key === keep || !entry.users.delete(user) || entry.users.size) continue;
    entry.timer = setTimeout(() => {
      if (entry.users.size || shared.models.get(key) !== entry) return;
      shared.models.delete(key);
      entry.controller.abort(); // a download still running stops, and frees what it loaded
      entry.loading.then((model) => model.dispose(), () => {});
    }, RELEASE_MS);
  }
}

export class MultiheadView extends HTMLElement {
  static observedAttributes = ATTRIBUTES;

  #state = {
    status: 'loading', // 'loading' | 'empty' | 'ready' | 'error'
    result: null, // { key, source, tokens, unknown, layers, truncated, totalTokens, causal, run, traced } for the current sentence and model
    shown: null, // { view, layer, heads }: what is on screen, as numbers from 0
    current: null, // { name, view }: the view object on screen
    asked: 0, // numbers every computation; an older one's answer is dropped
    scheduled: false,
    width: 0, // the frame's width at the last drawing
    reported: null, // the message of the last error event, until the element is ready or empty again
  };
  #dom;
  // Only a drawn view follows the width: an element showing an error or still loading has nothing
  // to redraw (redrawing a bad attribute would only fail, and report it, again).
  #resize = new ResizeObserver(() => {
    if (this.#state.status === 'ready' && this.#dom.frame.clientWidth !== this.#state.width) this.#draw();
  });
  // The sentence may be the element's text, which can arrive or change after it is connected.
  #text = new MutationObserver(() => {
    if (!this.hasAttribute('sentence')) this.#schedule();
  });

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const status = el('p', 'status', 'Loading the attention engine…');
    status.setAttribute('role', 'status');
    const view = el('div', 'view');
    // Resolves a height attribute to pixels (em, vh, calc()…) without touching the frame.
    const probe = el('div', 'probe');
    const frame = el('div', 'frame');
    frame.append(status, view, probe);
    adoptStyles(root);
    root.append(frame);
    this.#dom = { frame, status, view, probe };
  }

  connectedCallback() {
    // Moved in the page: claim the model on screen again before its release delay frees it.
    if (this.#state.result) sharedModel(this.#state.result.source, this).catch(() => {});
    this.#resize.observe(this.#dom.frame);
    this.#text.observe(this, { childList: true, characterData: true, subtree: true });
    this.#schedule();
  }

  disconnectedCallback() {
    this.#resize.disconnect();
    this.#text.disconnect();
    releaseModel(this);
    this.#state.current?.view.destroy();
    this.#state.current = null;
  }

  attributeChangedCallback() {
    if (this.isConnected) this.#schedule();
  }

  /** 'loading', 'empty', 'ready' or 'error'. */
  get state() {
    return this.#state.status;
  }

  /** The tokens on screen, or null before the first result. */
  get tokens() {
    return this.#state.result?.tokens.slice() ?? null;
  }

  /** The attention weights on screen: [layer][head] of (n × n) row-major Float32Array copies. */
  get attention() {
    return this.#state.result?.layers.map((l) => l.weights.map((w) => w.slice())) ?? null;
  }

  /** The tokens and every layer's attention, as JSON text. */
  exportJSON() {
    const { tokens, unknown, layers } = this.#ready();
    return attentionJson({ tokens, unknown, layers });
  }

  /** The heatmaps of the heads on screen, as an SVG document. */
  exportSVG() {
    return heatmapSvg(this.#figure());
  }

  /** The same heatmaps as a PNG. */
  async exportPNG() {
    return heatmapPng(this.#figure());
  }

  #ready() {
    if (this.#state.status !== 'ready') throw new Error(`<multihead-view> has nothing to export yet (it is ${this.#state.status})`);
    return this.#state.result;
  }

  #figure() {
    const { tokens, layers } = this.#ready();
    const { view, layer, heads } = this.#state.shown;
    const weights = layers[layer].weights;
    return { tokens, weights, heads: headsOnScreen(view, weights.length, heads), title: `Layer ${layer + 1}` };
  }

  // Attribute changes arrive one by one: one update after the last of a batch.
  #schedule() {
    if (this.#state.scheduled) return;
    this.#state.scheduled = true;
    queueMicrotask(() => {
      this.#state.scheduled = false;
      this.#update();
    });
  }

  async #update() {
    const sentence = this.getAttribute('sentence') ?? this.textContent.trim();
    let source;
    try {
      source = modelSource(this.getAttribute('model'), this.getAttribute('hub-url'));
    } catch (error) {
      this.#state.result = null;
      ++this.#state.asked;
      return this.#fail(error.message);
    }
    const key = JSON.stringify([source, sentence]);
    if (this.#state.result?.key !== key) {
      const asked = ++this.#state.asked;
      this.#state.result = null;
      if (sentence.trim() === '') return this.#show('empty', 'Give the element a sentence to show its attention.');
      if (sentence.length > MAX_SENTENCE) {
        return this.#fail(`sentence has ${sentence.length} characters; the element takes at most ${MAX_SENTENCE}`);
      }
      this.#show('loading', 'Loading the attention engine and the model…');
      let result;
      try {
        const model = await sharedModel(source, this);
        if (asked !== this.#state.asked) return;
        result = model.run(sentence);
      } catch (error) {
        if (asked === this.#state.asked) this.#fail(error.message);
        return;
      }
      const { tokens, unknown, truncated, totalTokens } = result;
      const causal = Boolean(result.causal);
      // run: the engine's result, kept to compute the four-steps view's layer when it is shown.
      this.#state.result = { key, source, tokens, unknown, truncated, totalTokens, causal, layers: attentionLayers(result), run: result, traced: null };
    }
    this.#draw();
  }

  #draw() {
    const r = this.#state.result;
    if (!r || !this.isConnected) return;
    let choice;
    try {
      choice = readChoice(this, r.layers.length, r.layers[0].numHeads, (css) => this.#pixels(css));
    } catch (error) {
      return this.#fail(error.message);
    }
    const { view, layer, heads, height } = choice;
    this.#dom.frame.style.height = height;
    this.#show('ready', r.truncated ? truncationNote(r) : '');
    this.#state.shown = { view, layer, heads };
    try {
      if (view === 'steps' && r.traced !== layer) this.#trace(layer);
      this.#viewFor(view).update(viewData(view, r, layer, { head: view === 'lines' ? heads : heads[0] }));
    } catch (error) {
      return this.#fail(error.message);
    }
    this.#state.width = this.#dom.frame.clientWidth; // after drawing, which may add a scrollbar
    this.#emit('render', { tokens: r.tokens.slice(), view, layer: layer + 1, heads: heads.map((h) => h + 1) });
  }

  // The full matrices of one layer, in place of its weights; the layer traced before goes back to its weights.
  #trace(layer) {
    const r = this.#state.result;
    if (r.traced !== null) r.layers[r.traced] = { numHeads: r.layers[r.traced].numHeads, weights: r.layers[r.traced].weights };
    r.layers[layer] = tracedLayer(r.run, layer);
    r.traced = layer;
  }

  /** The height `css` gives, in pixels. */
  #pixels(css) {
    const { probe } = this.#dom;
    probe.style.height = css;
    const pixels = Number.parseFloat(getComputedStyle(probe).height);
    probe.style.height = '';
    return pixels;
  }

  #viewFor(name) {
    const s = this.#state;
    if (s.current?.name === name) return s.current.view;
    s.current?.view.destroy();
    const root = el('div');
    this.#dom.view.replaceChildren(root);
    s.current = { name, view: VIEWS[name](root, this.#callbacks(name)) };
    return s.current.view;
  }

  // What a view reports, as events from the element (they cross the shadow root).
  #callbacks(name) {
    const shown = () => this.#state.shown;
    const token = (query) => (query === null ? null : this.#state.result.tokens[query]);
    if (name === 'grid') {
      return {
        onSelectHead: (h) => {
          const layer = shown().layer + 1;
          if (this.#emit('headselect', { layer, head: h + 1 }, { cancelable: true })) {
            this.setAttribute('head', String(h + 1));
            this.setAttribute('view', 'head');
          }
        },
      };
    }
    const where = () => ({ layer: shown().layer + 1, heads: shown().heads.map((h) => h + 1) });
    return {
      onSelect: (query) => this.#emit('tokenselect', { ...where(), query, token: token(query) }),
      onSelectCell: ({ row, col }) => {
        const { layer, heads } = shown();
        const n = this.#state.result.tokens.length;
        const weight = this.#state.result.layers[layer].weights[heads[0]][row * n + col];
        this.#emit('cellselect', { ...where(), query: row, key: col, queryToken: token(row), keyToken: token(col), weight });
      },
    };
  }

  #emit(type, detail, { cancelable = false, bubbles = true } = {}) {
    return this.dispatchEvent(new CustomEvent(type, { detail, bubbles, composed: bubbles, cancelable }));
  }

  #show(status, text) {
    this.#state.status = status;
    if (status === 'ready' || status === 'empty') this.#state.reported = null;
    this.dataset.state = status;
    this.#dom.status.textContent = text;
    if (status !== 'ready') {
      this.#state.current?.view.destroy();
      this.#state.current = null;
      this.#dom.view.replaceChildren();
    }
  }

  // One event per distinct problem: a later attempt that meets the same one (the sentence changed
  // but view="bogus" is still there) shows it again but does not report it again.
  #fail(message) {
    this.#show('error', `multihead: ${message}`);
    if (this.#state.reported === message) return;
    this.#state.reported = message;
    this.#emit('error', { message }, { bubbles: false }); // a bubbling 'error' would reach window.onerror
  }
}

/**
 * The model attribute as { builtin } (a built-in model's name: absent or empty is "default"),
 * { hub, hubUrl } (a Hub id) or { url } (a folder URL, made absolute, so "./m/" and "/m/" share
 * when they are the same folder). A value with a scheme, or starting with /, ./ or ../, or ending
 * with /, is a URL; the built-in names win over Hub ids of the same spelling (the Hub has no such
 * models); anything else is a Hub id, which loadModel checks. hub-url must be http(s).
 */
function modelSource(value, hubUrl) {
  const text = value?.trim() || 'default';
  if (BUILTIN_MODELS.includes(text)) return { builtin: text };
  if (!isHubId(text) || text.endsWith('/')) return { url: new URL(text, document.baseURI).href };
  // hubBase refuses what is not a plain http(s) URL, and spells the default Hub one way.
  try {
    return { hub: text, hubUrl: hubBase(hubUrl?.trim() || DEFAULT_HUB_URL) };
  } catch (error) {
    throw new TypeError(error.message.replace(/^hubUrl/, 'hub-url'));
  }
}

// The views the element shows; the page's average and rollout views are not among them yet.
const ELEMENT_VIEWS = ['grid', 'head', 'lines', 'steps'];

/**
 * The view, layer, heads (from 0) and height the attributes ask for; throws naming a bad one.
 * `pixels(css)` resolves a CSS height to pixels.
 */
function readChoice(element, layers, heads, pixels) {
  const view = element.getAttribute('view') ?? 'grid';
  if (!ELEMENT_VIEWS.includes(view)) throw new RangeError(`view must be grid, head, lines or steps, got "${view}"`);
  const layer = counted(element, 'layer', element.getAttribute('layer') ?? '1', layers);
  const headText = element.getAttribute('head')?.trim() || '1';
  const list = headText === 'all'
    ? Array.from({ length: heads }, (_, h) => h)
    : headText.split(/[\s,]+/).map((part) => counted(element, 'head', part, heads));
  if (list.length > 1 && view !== 'lines') throw new RangeError(`several heads ("${headText}") need view="lines"; the ${view} view shows one`);
  // The palettes are chosen by CSS ([theme="dark"]); any other value would silently mean light.
  const theme = element.getAttribute('theme') ?? '';
  if (!['', 'light', 'dark', 'auto'].includes(theme)) throw new RangeError(`theme must be light, dark or auto, got "${theme}"`);
  return { view, layer, heads: list, height: readHeight(element.getAttribute('height'), pixels) };
}

function counted(element, name, text, count) {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || value < 1 || value > count) {
    throw new RangeError(`${name} must be a whole number from 1 to ${count}${name === 'head' ? ', a list of them, or "all"' : ''}, got "${text}"`);
  }
  return value - 1;
}

/** A height attribute as CSS: a number is pixels; absent is "as tall as the view". */
function readHeight(value, pixels) {
  if (value === null || value.trim() === '') return '';
  const number = /^\s*(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value) ? Number(value) : null;
  const text = number === null ? value.trim() : `${number}px`;
  if (!CSS.supports('height', text)) throw new RangeError(`height must be a CSS length such as 400 or 30em, got "${value}"`);
  // A length the page cannot resolve now (auto, or inside a display: none subtree) is let through.
  if ((number ?? pixels(text)) > MAX_HEIGHT) {
    throw new RangeError(`height must be at most ${MAX_HEIGHT} pixels (a number, or a CSS length such as 30em), got "${value}"`);
  }
  return text;
}

if (!customElements.get('multihead-view')) customElements.define('multihead-view', MultiheadView);
