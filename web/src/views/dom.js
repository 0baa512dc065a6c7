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

/** "query → key: weight" for one cell of an (n × n) attention matrix. */
export function weightText(tokens, weights, row, col) {
  return `${tokens[row]} → ${tokens[col]}: ${formatNumber(weights[row * tokens.length + col])}`;
}

/** Whether two token lists are the same sentence (views keep pins and focus only then). */
export function sameTokens(a, b) {
  return a !== undefined && b !== undefined && a.length === b.length && a.every((t, i) => t === b[i]);
}

/**
 * The key to the hatched triangle of a causal model's heatmaps, hidden until `show(true)`: the
 * views hatch the cells above the diagonal, and without a key a reader takes them for weights of 0
 * that the model learned, when no token can look at a later one by construction.
 */
export function causalKey() {
  const key = el('p', 'mh-causal-key');
  key.append(el('span', 'mh-causal-swatch'), el('span', '', 'Hatched: a later token, which this causal model cannot look at (the causal mask).'));
  key.hidden = true;
  return { element: key, show: (causal) => { key.hidden = !causal; } };
}
