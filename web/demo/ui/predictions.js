// The page's predictions panel: what a masked LM would put at each of its mask tokens ([MASK],
// <mask>: the one its tokenizer has) in the sentence, or the tokens a causal model expects after
// the last token and after the one the reader points at or chose. It draws the worker's
// { position, top: [{ token, id, probability }] } lists (with heads switched off, each token also
// has `before`, its probability with every head on, shown as before → after, and `now` lists what
// the model puts first now), and says what to type when there is nothing to predict. Token text
// goes in as textContent only: a vocabulary is untrusted and may hold "<img onerror=…>" as a token.
import { el } from '../../src/views/dom.js';

/**
 * Draws the panel into `root` (hidden when the model has no LM head). `info` is the model's info
 * from the worker, `result` the page's result (tokens, predictions: [{ position, top }]); `next`
 * says its rows predict the next token (a causal model's, an encoder–decoder's target), else
 * the masks are predicted.
 */
export function renderPredictions(root, info, result, next = info.causal) {
  root.hidden = !result || !info.hasLmHead || (info.encoderDecoder && !next);
  if (root.hidden) return root.replaceChildren();
  const lists = result.predictions ?? [];
  const off = lists.some((list) => list.now);
  const heading = el('h2', '', `${next ? 'What the model expects next' : 'What the model puts at each mask'}` +
    `${off ? ': with every head on → with the heads switched off' : ''}`);
  const parts = [heading];
  if (!next && lists.length === 0) {
    const mask = info.maskToken ?? '[MASK]';
    parts.push(el('p', 'predictions-hint', `Type ${mask} in the sentence, for example “The capital of France is ${mask}.”, ` +
      'to see the words this model would put there.'));
  }
  for (const { position, top, now } of lists) {
    const token = result.tokens[position];
    const where = next
      ? `After “${token}” (token ${position + 1}${position === result.tokens.length - 1 ? ', the last' : ''})`
      : `${token.trim()} (token ${position + 1})`;
    const figure = el('figure', 'prediction');
    figure.append(el('figcaption', '', where));
    const list = el('ol');
    for (const { token: word, probability, before } of top) {
      const item = el('li');
      // The exact numbers, for a reader's tools and the tests; the text rounds them.
      item.dataset.probability = String(probability);
      if (before !== undefined) item.dataset.before = String(before);
      const bar = el('span', 'prediction-bar');
      bar.style.width = `${(probability * 100).toFixed(1)}%`;
      const p = before === undefined ? el('span', 'prediction-p', percent(probability))
        : el('span', 'prediction-p prediction-change', `${percent(before)} → ${percent(probability)}`);
      if (before !== undefined) p.title = 'with every head on → with the switched-off heads off';
      // Quotes show where a token's own spaces are (GPT-2's " the" is not "the").
      item.append(el('span', 'mh-token prediction-token', `“${word}”`), p, bar);
      list.append(item);
    }
    figure.append(list);
    if (now) {
      figure.append(el('p', 'predictions-hint', `First now: ${now.slice(0, 3).map((t) => `“${t.token}” ${percent(t.probability)}`).join(', ')}`));
    }
    parts.push(figure);
  }
  if (next) {
    const what = info.encoderDecoder ? 'the target' : 'the sentence';
    parts.push(el('p', 'predictions-hint', `Point at a token of ${what} above, or choose it, to see what the model expects after it.`));
  }
  root.replaceChildren(...parts);
}

export function percent(p) {
  return p >= 0.001 ? `${(p * 100).toFixed(1)}%` : '< 0.1%';
}
