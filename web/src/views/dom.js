// Small DOM helpers the views share. Tokens are user input: they reach the page as text only,
// never as HTML, and are marked when the vocabulary does not know them.
import { formatNumber } from './colormap.js';

/** A new element with a class and, optionally, text. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A token as an element: its text, and a mark and a title when it is not in the vocabulary. */
export function tokenLabel(tag, text, unknown) {
  const node = el(tag, unknown ? 'mh-token mh-unknown' : 'mh-token', text);
  node.title = unknown ? `${text} (not in the vocabulary)` : text;
  return node;
}

/**
 * A view's two axes: the query tokens down the rows (data.tokens) and the key tokens across the
 * columns (data.keyTokens, the same list for self-attention), each with its unknown marks.
 */
export function axes({ tokens, unknown = [], keyTokens, keyUnknown }) {
  return { queries: tokens, queryUnknown: unknown, keys: keyTokens ?? tokens, keyUnknown: keyUnknown ?? (keyTokens ? [] : unknown) };
}

/** "query → key: weight" for one cell of an (nQueries × nKeys) attention matrix. */
export function weightText({ queries, keys }, weights, row, col) {
  return `${queries[row]} → ${keys[col]}: ${formatNumber(weights[row * keys.length + col])}`;
}

/** Whether two token lists are the same sentence (views keep pins and focus only then). */
export function sameTokens(a, b) {
  return a !== undefined && b !== undefined && a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Whether two views' data have the same query and key tokens. */
export function sameAxes(a, b) {
  if (!a || !b) return false;
  const [x, y] = [axes(a), axes(b)];
  return sameTokens(x.queries, y.queries) && sameTokens(x.keys, y.keys);
}

/**
 * The key to the hatched cells of a heatmap, each line hidden until `show` asks for it: a causal
 * model's triangle above the diagonal (no token can look at a later one, by construction), and a
 * sliding-window layer's keys beyond its window (a query sees only the `window` latest tokens, itself
 * included). Without a key a reader takes them for weights of 0 that the model learned.
 */
export function maskKey() {
  const line = (kind, text) => {
    const key = el('p', `mh-${kind}-key`);
    const swatch = `mh-${kind}-swatch`;
    key.append(el('span', swatch), el('span', '', text));
    key.hidden = true;
    return key;
  };
  const causal = line('causal', 'Hatched: a later token, which this causal model cannot look at (the causal mask).');
  const window = line('window', '');
  const element = el('div', 'mh-mask-key');
  element.append(causal, window);
  return {
    element,
    /** causal: whether to explain the causal triangle; window: the layer's window, or null for full attention. */
    show({ causal: isCausal = false, window: size = null } = {}) {
      causal.hidden = !isCausal;
      window.hidden = size === null;
      if (size !== null) {
        window.lastChild.textContent = `Cross-hatched: an earlier token outside this layer's sliding window. Each token sees only the ${size} ` +
          `latest tokens, itself included; a full-attention layer sees them all.`;
      }
    },
  };
}
