// <multihead-view>: importing 'multihead/element' registers it.
//
// Attributes (all optional; they may change at any time):
// - sentence: the text to run (without it, the element's own text content);
// - view: grid (default), head, lines, steps, why (why did the model predict what it did: each
//   head's share of the logit, the logit lens, and the chosen head's queries and keys on one map;
//   a one-stack model with a language-model head only) or alignment (an encoder–decoder's: the
//   source above the target, each written word linked to the source words the layer's cross
//   heads, averaged, read when writing it);
// - layer: from 1 (default 1); head: from 1 (default 1), or in the lines view a list such as "1, 3", or "all";
// - model: a built-in model, "default" (the default when absent: a small BERT), "causal" (a small
//   GPT-2 with induction heads) or "reverse" (a small BART that writes a list of words backwards),
//   all inside the package; a Hugging Face Hub model id ("gpt2",
//   "bert-base-uncased", "owner/name"); or a folder URL holding config.json, tokenizer.json and
//   model.safetensors. A value with a scheme (https:), or starting with /, ./ or ../, or ending
//   with /, is a URL; the built-in names are never Hub ids; anything else is a Hub id.
//   Elements naming the same model share one download;
// - hub-url: where Hub ids are fetched from, an http(s) URL (default: the Hugging Face Hub); for
//   a mirror, or a test's fake Hub;
// - stack (an encoder–decoder's: T5, BART, Marian, whose sentence is the source): the attention
//   shown, encoder (default; cross for the alignment view), decoder, or cross (the decoder's rows
//   over the source's columns: cellselect's keyToken is a source token);
// - target (an encoder–decoder's): the target text the decoder reads, at most 2000 characters as the sentence; without it the model writes
//   its own (greedy, at most 64 tokens) and the element shows that;
// - theme: light (default), dark, or auto (follows the system);
// - height: a CSS length, or a number of pixels, at most 100000 pixels; the view scrolls inside it;
// - position, token, against (the why view): the position explained, from 1 (default: a causal
//   model's last, a masked model's first mask), the token explained (default: the top prediction)
//   and one against it (the logit difference), each one token of the vocabulary, spaces included.
//   Patching needs a second prompt and a few hundred runs: it is the page's, not the element's.
// Every element on a page shares one engine and one instance of each model.
//
// Events (CustomEvent, bubbling out of the shadow root, except error). layer and head count from
// 1 as the attributes do; query and key index `tokens` from 0:
// - render { tokens, view, layer, heads } after each drawing (a grid of many heads may go on drawing
//   its heatmaps for a few frames, with aria-busy on the view meanwhile);
// - tokenselect { layer, heads, query, token } when a query row is pinned (query null: unpinned);
// - cellselect { layer, heads, query, key, queryToken, keyToken, weight } when a cell is chosen;
// - headselect { layer, head } when a head of the grid or the why view is chosen; unless cancelled, the element
//   then shows that head (it sets view="head" and head);
// - error { message } when the model cannot load or run, an attribute is invalid, or the sentence is
//   over 2000 characters (also shown in the element; this one does not bubble). It fires once per
//   problem: redrawing, or another attribute changing while the problem stays, does not repeat it.
// The sentence attribute and the element's text are both watched.

export interface MultiheadViewEventMap {
  render: CustomEvent<{ tokens: string[]; view: string; layer: number; heads: number[] }>;
  tokenselect: CustomEvent<{ layer: number; heads: number[]; query: number | null; token: string | null }>;
  cellselect: CustomEvent<{ layer: number; heads: number[]; query: number; key: number; queryToken: string; keyToken: string; weight: number }>;
  headselect: CustomEvent<{ layer: number; head: number }>;
  error: CustomEvent<{ message: string }>;
}

export class MultiheadView extends HTMLElement {
  /** 'loading', 'empty' (no sentence), 'ready' or 'error'. */
  readonly state: 'loading' | 'empty' | 'ready' | 'error';
  /** The tokens on screen, or null before the first result. */
  readonly tokens: string[] | null;
  /** Copies of the attention on screen: [layer][head], each (n × n) row-major, query rows. */
  readonly attention: Float32Array[][] | null;
  /** The tokens and every layer's attention as JSON text. Throws unless state is 'ready'. */
  exportJSON(): string;
  /** The heatmaps of the layer on screen (the heads shown, or all of them in the grid and steps views), or the why view's figure, as SVG. */
  exportSVG(): string;
  /** The same figure as a PNG. */
  exportPNG(): Promise<Blob>;
  /** The why view's numbers as CSV text. Throws in the other views, or unless state is 'ready'. */
  exportCSV(): string;
  /** The element's events with their details (MultiheadViewEventMap), then any element's. */
  addEventListener<K extends keyof MultiheadViewEventMap>(type: K, listener: (this: MultiheadView, event: MultiheadViewEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: MultiheadView, event: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof MultiheadViewEventMap>(type: K, listener: (this: MultiheadView, event: MultiheadViewEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: MultiheadView, event: HTMLElementEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'multihead-view': MultiheadView;
  }
}
