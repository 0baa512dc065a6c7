// The sentence's tokens, as the model's tokenizer cut them. A causal model's tokens are buttons:
// pointing at one (or focusing it) shows what the model expects after it, and choosing one keeps
// that list on screen. The list is drawn again only for new tokens, so the buttons, and the
// keyboard's focus on one, stay while predictions come and go; tokens the model writes are added
// to it as they come, marked as written.
import { tokenLabel } from '../../src/views/dom.js';
import { cleared } from '../state/status.js';
import { predictsNext } from '../state/needed.js';
import { shownStack } from '../state/settings.js';

// What an encoder–decoder's token list holds: the rows of the attention on screen.
const STACK_TOKENS = { encoder: 'Source:', decoder: 'Decoder input (its start, then the target):', cross: 'Target rows (the decoder\'s input):' };

export function createTokenList(store) {
  const { dispatch } = store;
  const list = document.getElementById('tokens');
  const drawn = { tokens: null, choosable: null, label: null };

  function render(state) {
    const run = state.result.run;
    // Between a new model and its first answer the old tokens stay; an empty or stopped sentence has none.
    if (!run && !cleared(state)) return;
    const shown = cleared(state) ? null : run;
    const choosable = Boolean(predictsNext(state) && shown?.hasLmHead && state.settings.mode === 'model');
    const label = state.session.info?.encoderDecoder && state.settings.mode === 'model' ? STACK_TOKENS[shownStack(state)] : null;
    if (shown && choosable === drawn.choosable && label === drawn.label && grows(drawn.tokens, shown)) {
      list.append(...tokens(shown, choosable, drawn.tokens.length));
      drawn.tokens = shown.tokens;
    } else if (shown?.tokens !== drawn.tokens || choosable !== drawn.choosable || label !== drawn.label) {
      Object.assign(drawn, { tokens: shown?.tokens ?? null, choosable, label });
      const heading = label ? [Object.assign(document.createElement('span'), { className: 'tokens-label', textContent: label })] : [];
      list.replaceChildren(...heading, ...(shown ? tokens(shown, choosable) : []));
    }
    for (const [i, button] of [...list.querySelectorAll('button.mh-token')].entries()) {
      button.setAttribute('aria-pressed', String(state.ui.at === i));
    }
  }

  /** Whether `run` only adds written tokens to `before` (no mark of unknown tokens ends the list). */
  function grows(before, run) {
    const { tokens: labels, unknown } = run;
    return before !== null && labels.length > before.length && !unknown.some(Boolean) && before.every((t, i) => t === labels[i]);
  }

  function tokens({ tokens: labels, unknown, promptLength = labels.length }, choosable, from = 0) {
    const nodes = labels.slice(from).map((t, k) => {
      const i = from + k;
      const token = tokenLabel(choosable ? 'button' : 'span', t, unknown[i]);
      const written = i >= promptLength;
      if (written) {
        token.classList.add('mh-written');
        token.title = `${t} (written by the model)`;
      }
      if (!choosable) return token;
      token.type = 'button';
      token.setAttribute('aria-label', `${t}${written ? ', written by the model' : ''}: show what the model expects after token ${i + 1}`);
      token.addEventListener('click', () => dispatch({ type: 'choose-token', index: i }));
      token.addEventListener('pointerenter', () => dispatch({ type: 'point', index: i }));
      token.addEventListener('pointerleave', () => dispatch({ type: 'point', index: null }));
      token.addEventListener('focus', () => dispatch({ type: 'focus-token', index: i }));
      token.addEventListener('blur', () => dispatch({ type: 'focus-token', index: null }));
      return token;
    });
    if (from === 0 && unknown.some(Boolean)) {
      const key = document.createElement('span');
      key.className = 'tokens-key';
      key.textContent = 'underlined in dashes: not in the model\'s vocabulary';
      nodes.push(key);
    }
    return nodes;
  }

  return { render };
}
