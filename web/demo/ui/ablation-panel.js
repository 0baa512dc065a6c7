// The page's ablation panel: which heads are switched off (each a button that switches it back
// on), whether they give zero or their mean, and a strip per layer showing how far that layer's
// output moved from the run with every head on: 1 − cosine similarity, averaged over tokens. It
// draws what main.js gives it and reports clicks.
import { el } from '../../src/views/dom.js';

/**
 * Builds the panel in `root` (index.html's #ablation). `onToggleHead(layer, head, stack)` switches a
 * head, `onReset()` switches every head back on; the zero/mean radios are main.js's.
 */
export function createAblationPanel(root, { onToggleHead, onReset }) {
  const $ = (id) => root.querySelector(`#${id}`);
  const dom = { list: $('ablation-list'), reset: $('ablation-reset'), changes: $('ablation-changes'), hint: $('ablation-hint') };
  dom.reset.addEventListener('click', onReset);

  /**
   * Draws `ablated` ([{ layer, head, stack? }]: an encoder–decoder's decoder and cross heads name
   * their stack) and `changes` (one number per layer, or null before the run answers).
   */
  function update({ ablated, changes }) {
    dom.reset.hidden = ablated.length === 0;
    dom.hint.hidden = ablated.length > 0;
    dom.list.replaceChildren(...ablated.map(({ layer, head, stack = 'encoder' }) => {
      const [short, long] = stack === 'encoder' ? ['', ''] : [`${stack} `, `The ${stack === 'cross' ? 'cross-attention' : 'decoder'}'s l`];
      const button = el('button', 'ablation-head', `${short}L${layer + 1} H${head + 1} ✕`);
      button.type = 'button';
      button.setAttribute('aria-label', `${long || 'L'}ayer ${layer + 1} head ${head + 1} is off: switch it on`);
      button.addEventListener('click', () => onToggleHead(layer, head, stack));
      return button;
    }));
    dom.changes.hidden = ablated.length === 0 || !changes;
    if (dom.changes.hidden) return dom.changes.replaceChildren();
    const largest = Math.max(...changes, 1e-6);
    const strip = el('ol', 'ablation-strip');
    changes.forEach((change, l) => {
      const item = el('li');
      const bar = el('span', 'ablation-bar');
      bar.style.width = `${Math.round((change / largest) * 100)}%`;
      item.append(el('span', 'ablation-layer', `Layer ${l + 1}`), el('span', 'ablation-track'), el('span', 'ablation-value', change.toFixed(4)));
      item.children[1].append(bar);
      item.title = `Layer ${l + 1}'s output moved by ${change.toFixed(4)} (1 − cosine similarity, averaged over the tokens)`;
      strip.append(item);
    });
    dom.changes.replaceChildren(el('h3', '', 'How far each layer\'s output moved (1 − cosine similarity, averaged over tokens)'), strip);
  }

  return { update };
}
