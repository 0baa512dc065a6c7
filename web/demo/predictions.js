// The page's predictions panel: what a masked-LM model would put at each [MASK] / <mask> the user
// typed, or the tokens a causal model expects after the last token and after the one the user
// points at or chose. It draws the worker's { position, top: [{ token, id, probability }] } lists, and says
// what to type when there is nothing to predict. Token text goes in as textContent only: a
// vocabulary is untrusted and may hold "<img onerror=…>" as a token.
import { el } from '../src/views/dom.js';

const MASK = { bert: '[MASK]', distilbert: '[MASK]', roberta: '<mask>' };

/**
 * Draws the panel into `root` (hidden when the model has no LM head). `info` is the model's info
 * from the worker, `result` the page's result (tokens, predictions: [{ position, top }]).
 */
export function renderPredictions(root, info, result) {
  root.hidden = !result || !info.hasLmHead;
  if (root.hidden) return root.replaceChildren();
  const heading = el('h2', '', info.causal ? 'What the model expects next' : 'What the model puts at each mask');
  const parts = [heading];
  const lists = result.predictions ?? [];
  if (!info.causal && lists.length === 0) {
    const mask = MASK[info.architecture] ?? '[MASK]';
    parts.push(el('p', 'predictions-hint', `Type ${mask} in the sentence, for example “The capital of France is ${mask}.”, ` +
      'to see the words this model would put there.'));
  }
  for (const { position, top } of lists) {
    const token = result.tokens[position];
    const where = info.causal
      ? `After “${token}” (token ${position + 1}${position === result.tokens.length - 1 ? ', the last' : ''})`
      : `${token.trim()} (token ${position + 1})`;
    const figure = el('figure', 'prediction');
    figure.append(el('figcaption', '', where));
    const list = el('ol');
    for (const { token: word, probability } of top) {
      const item = el('li');
      const bar = el('span', 'prediction-bar');
      bar.style.width = `${(probability * 100).toFixed(1)}%`;
      // Quotes show where a token's own spaces are (GPT-2's " the" is not "the").
      item.append(el('span', 'mh-token prediction-token', `“${word}”`), el('span', 'prediction-p', percent(probability)), bar);
      list.append(item);
    }
    figure.append(list);
    parts.push(figure);
  }
  if (info.causal) {
    parts.push(el('p', 'predictions-hint', 'Point at a token of the sentence above, or choose it, to see what the model expects after it.'));
  }
  root.replaceChildren(...parts);
}

function percent(p) {
  return p >= 0.001 ? `${(p * 100).toFixed(1)}%` : '< 0.1%';
}
