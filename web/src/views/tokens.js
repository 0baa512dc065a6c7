// How a token is put on the page: always as text (tokens are user input, never HTML), and marked
// when the vocabulary does not know it.
export function tokenLabel(tag, text, unknown) {
  const node = document.createElement(tag);
  node.className = unknown ? 'mh-token mh-unknown' : 'mh-token';
  node.textContent = text;
  node.title = unknown ? `${text} (not in the vocabulary)` : text;
  return node;
}
