// <multihead-view>: one view of a model's attention, for pages we do not control. Importing this
// module registers the element (the package's other modules register nothing). Its markup and
// styles live in a shadow root, so the host page's CSS cannot reach in and ours cannot leak out.
// Every element on a page shares one engine and one instance of each model. It runs the model on
// the main thread: a tutorial-sized sentence takes a few milliseconds, and the page's own worker
// would need a second file to host, which some authors cannot serve. It is for browsers only.
// On the main thread nothing can stop a tokenizer that never returns (a hostile tokenizer.json):
// the loader's pattern check and the 2000-character cap below are its only defences.
// An encoder–decoder's sentence is its source: the element shows the attention its stack attribute
// names (encoder, decoder or cross) over the target attribute, or, without one, over the target
// the model writes itself (greedy, at most WRITTEN_TARGET tokens).
// The model attribute names a built-in model (default, causal, reverse), a Hub id (gpt2, owner/name) or a
// folder URL (attributes.js reads it, and the rest); elements asking for the same model share one
// download and one copy in memory (model-registry.js). It keeps every layer's attention weights,
// and computes a layer's full trace only for the four-steps view's layer.
import { loadEngine } from '../engine/engine.js';
import { MAX_SENTENCE, WRITTEN_TARGET, modelSource, readChoice, readStack, readWhy } from './attributes.js';
import { createModelRegistry } from './model-registry.js';
import { attentionJson, headsOnScreen, heatmapPng, heatmapSvg } from '../views/export.js';
import { VIEWS_CSS, palette } from '../views/styles.js';
import { el } from '../views/dom.js';
import { attentionLayers, attentionShape, tracedLayer, truncationNote, viewData } from '../views/view-data.js';
import { stackRun } from '../views/stack-run.js';
import { VIEWS } from '../views/views.js';
import { explainAt, whyQueryKeys } from '../views/why-data.js';
import { whyCsv, whyPng, whySvg } from '../views/why-export.js';

const ATTRIBUTES = ['sentence', 'layer', 'head', 'view', 'model', 'hub-url', 'theme', 'height', 'position', 'token', 'against', 'stack', 'target'];

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

// Every element on the page shares one engine (on one thread: the host page may not be isolated)
// and one copy of each model.
const models = createModelRegistry({ loadEngine: () => loadEngine({ threads: 1 }) });

export class MultiheadView extends HTMLElement {
  static observedAttributes = ATTRIBUTES;

  #state = {
    status: 'loading', // 'loading' | 'empty' | 'ready' | 'error'
    result: null, // { key, source, tokens, unknown, layers, truncated, totalTokens, causal, closing, run, traced } for the current sentence and model
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
    if (this.#state.result) models.acquire(this.#state.result.source, this).catch(() => {});
    this.#resize.observe(this.#dom.frame);
    this.#text.observe(this, { childList: true, characterData: true, subtree: true });
    this.#schedule();
  }

  disconnectedCallback() {
    this.#resize.disconnect();
    this.#text.disconnect();
    models.release(this);
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

  /** The attention weights on screen: [layer][head] of (n × n) row-major Float32Array copies ((n × nKeys) for a cross-attention). */
  get attention() {
    return this.#state.result?.layers?.map((l) => l.weights.map((w) => w.slice())) ?? null; // an encoder–decoder's has none before a stack is shown
  }

  /** The tokens and every layer's attention, as JSON text (a cross-attention's with its keyTokens). */
  exportJSON() {
    const { tokens, unknown, keyTokens, layers } = this.#ready();
    return attentionJson({ tokens, unknown, keyTokens, layers });
  }

  /** The heatmaps of the heads on screen (the why view: its figure), as an SVG document. */
  exportSVG() {
    return this.#state.shown?.view === 'why' ? whySvg(this.#ready().why) : heatmapSvg(this.#figure());
  }

  /** The same figure as a PNG. */
  async exportPNG() {
    return this.#state.shown?.view === 'why' ? whyPng(this.#ready().why) : heatmapPng(this.#figure());
  }

  /** The why view's numbers as CSV text. */
  exportCSV() {
    const r = this.#ready();
    if (this.#state.shown?.view !== 'why') throw new Error('<multihead-view> exports CSV from view="why" only');
    return whyCsv(r.why);
  }

  #ready() {
    if (this.#state.status !== 'ready') throw new Error(`<multihead-view> has nothing to export yet (it is ${this.#state.status})`);
    return this.#state.result;
  }

  #figure() {
    const { tokens, keyTokens, layers } = this.#ready();
    const { view, layer, heads } = this.#state.shown;
    const weights = layers[layer].weights;
    return { tokens, keyTokens, weights, heads: headsOnScreen(view === 'alignment' ? 'grid' : view, weights.length, heads), title: `Layer ${layer + 1}` };
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
      source = modelSource(this.getAttribute('model'), this.getAttribute('hub-url'), document.baseURI);
    } catch (error) {
      this.#state.result = null;
      ++this.#state.asked;
      return this.#fail(error.message);
    }
    const target = this.getAttribute('target');
    const key = JSON.stringify([source, sentence, target]);
    if (this.#state.result?.key !== key) {
      const asked = ++this.#state.asked;
      this.#state.result = null;
      if (sentence.trim() === '') return this.#show('empty', 'Give the element a sentence to show its attention.');
      // Both texts are tokenized on the host page's thread: the same cap for each.
      for (const [name, text] of [['sentence', sentence], ['target', target ?? '']]) {
        if (text.length > MAX_SENTENCE) return this.#fail(`${name} has ${text.length} characters; the element takes at most ${MAX_SENTENCE}`);
      }
      this.#show('loading', 'Loading the attention engine and the model…');
      let model, result;
      try {
        model = await models.acquire(source, this);
        if (asked !== this.#state.asked) return;
        if (model.encoderDecoder) {
          result = model.run(sentence, { target: target ?? { ids: await this.#written(model, sentence) } });
          if (asked !== this.#state.asked) return;
        } else {
          if (target !== null) throw new RangeError('target is an encoder–decoder\'s (T5, BART, Marian): the decoder\'s text; this model has one stack of layers');
          result = model.run(sentence);
        }
      } catch (error) {
        if (asked === this.#state.asked) this.#fail(error.message);
        return;
      }
      const { tokens, unknown, truncated, totalTokens } = result;
      const causal = Boolean(result.causal);
      const closing = model.specialTokens.closing !== null; // a cut text keeps it
      // run: the engine's result, kept with its model to compute the four-steps view's layer when
      // it is shown (an encoder–decoder's: the stack shown, which #showStack fills in).
      this.#state.result = {
        key, source, model, tokens, unknown, truncated, totalTokens, causal, closing, ...attentionShape(model), run: result, traced: null,
        ...model.encoderDecoder ? { whole: result, stack: null } : { layers: attentionLayers(result) },
      };
    }
    this.#draw();
  }

  /** The target an encoder–decoder writes from `sentence` (greedy), as ids. */
  async #written(model, sentence) {
    const ids = [];
    for await (const step of model.generate(sentence, { maxNewTokens: WRITTEN_TARGET })) ids.push(step.id);
    return ids;
  }

  /** An encoder–decoder's result showing `stack`: its rows, its keys and its layers. */
  #showStack(r, stack) {
    if (r.stack === stack) return;
    const shown = stackRun(r.whole, stack);
    const { tokens, unknown, keyTokens, keyUnknown, causal } = shown;
    Object.assign(r, { stack, run: shown, tokens, unknown, causal, layers: attentionLayers(shown), traced: null, why: null },
      stack === 'cross' ? { keyTokens, keyUnknown } : { keyTokens: undefined, keyUnknown: undefined });
  }

  #draw() {
    const r = this.#state.result;
    if (!r || !this.isConnected) return;
    let choice;
    try {
      const attribute = (name) => this.getAttribute(name);
      const attributes = { view: attribute('view'), layer: attribute('layer'), head: attribute('head'), theme: attribute('theme'), height: attribute('height') };
      const stack = readStack(attribute('stack'), attributes.view, r.model.encoderDecoder);
      if (r.model.encoderDecoder) this.#showStack(r, stack);
      choice = readChoice(attributes, r.layers.length, r.layers[0].numHeads,
        { supports: (height) => CSS.supports('height', height), pixels: (height) => this.#pixels(height) });
    } catch (error) {
      return this.#fail(error.message);
    }
    const { view, layer, heads, height } = choice;
    this.#dom.frame.style.height = height;
    this.#show('ready', r.truncated ? truncationNote(r) : '');
    this.#state.shown = { view, layer, heads };
    try {
      if (view === 'steps' && r.traced !== layer) this.#trace(layer);
      const data = view === 'why' ? this.#explain(layer, heads[0]) : viewData(view, r, layer, { head: view === 'lines' ? heads : heads[0] });
      this.#viewFor(view).update(data);
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
    r.layers[layer] = tracedLayer(r.run, layer, r.model.encoderDecoder ? null : r.model.rotation(layer));
    r.traced = layer;
  }

  /**
   * The why view's data for head `head` of `layer`: what the position, token and against
   * attributes ask for, computed once for each choice (the patch sweep is the page's).
   */
  #explain(layer, head) {
    const r = this.#state.result;
    const choice = readWhy({ position: this.getAttribute('position'), token: this.getAttribute('token'), against: this.getAttribute('against') }, r.tokens.length);
    const key = JSON.stringify([choice, layer, head]);
    if (r.why?.key !== key) {
      const { position, contributions = null, lens = null, error } = explainAt(r.model, r.run, choice.position, choice);
      if (error) throw new RangeError(error);
      r.why = { key, tokens: r.tokens, causal: r.causal, position, error: null, contributions, lens, queryKeys: whyQueryKeys(r.run, layer, head), patch: null, patching: null };
    }
    return r.why;
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
    if (name === 'why') {
      // A head chosen in the why view: its attention, unless the page cancels the event.
      return {
        onSelectHead: (l, h) => {
          if (this.#emit('headselect', { layer: l + 1, head: h + 1 }, { cancelable: true })) {
            for (const [attribute, value] of [['layer', l + 1], ['head', h + 1], ['view', 'head']]) this.setAttribute(attribute, String(value));
          }
        },
      };
    }
    const where = () => ({ layer: shown().layer + 1, heads: shown().heads.map((h) => h + 1) });
    return {
      onSelect: (query) => this.#emit('tokenselect', { ...where(), query, token: token(query) }),
      onSelectCell: ({ row, col }) => {
        const { layer, heads } = shown();
        const r = this.#state.result;
        const keys = r.keyTokens ?? r.tokens; // a cross-attention's keys are the source's tokens
        const weight = r.layers[layer].weights[heads[0]][row * keys.length + col];
        this.#emit('cellselect', { ...where(), query: row, key: col, queryToken: token(row), keyToken: keys[col], weight });
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

if (!customElements.get('multihead-view')) customElements.define('multihead-view', MultiheadView);
