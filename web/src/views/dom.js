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
