// The Write panel of a model that writes (a causal LM; an encoder–decoder, whose Write is
// Translate when it translates, writes its target): Write (Stop while it writes), its options (new tokens,
// temperature, top-k, top-p, seed), the chat switch for a model with a chat template, and the
// strip of written tokens. Each token of the strip shows the model's probability for it; choosing
// one lists its likeliest alternatives there, and marks in every head the row of the query that
// chose it (the token before). Options the reader mistypes are marked and not used. Token text
// goes in as textContent only: a vocabulary is untrusted.
import { el } from '../../src/views/dom.js';
import { canWrite, inputsKey, predictsNext } from '../state/needed.js';
import { WRITE_LIMITS, validWriteOption } from '../state/writing.js';
import { writes } from '../state/settings.js';
import { percent } from './predictions.js';

const OPTIONS = { maxNewTokens: 'write-new', temperature: 'write-temperature', topK: 'write-topk', topP: 'write-topp', seed: 'write-seed' };

export function createWritePanel(store, session) {
  const { dispatch } = store;
  const $ = (id) => document.getElementById(id);
  const dom = {
    section: $('write'), title: $('write-title'), button: $('write-button'), chat: $('write-chat'), chatControl: $('write-chat-control'),
    steps: $('write-steps'), chosen: $('write-chosen'), error: $('write-error'),
    inputs: Object.fromEntries(Object.entries(OPTIONS).map(([name, id]) => [name, $(id)])),
  };
  const drawn = { steps: null, step: null };

  dom.button.addEventListener('click', () => (store.state.session.writing ? session.stopWriting() : session.write()));
  dom.chat.addEventListener('change', () => dispatch({ type: 'chat', value: dom.chat.checked }));
  for (const [name, input] of Object.entries(dom.inputs)) {
    const [low, high] = WRITE_LIMITS[name];
    input.min = String(low);
    input.max = String(high);
    input.addEventListener('input', () => {
      const value = input.value === '' ? NaN : Number(input.value);
      const valid = validWriteOption(name, value);
      input.setAttribute('aria-invalid', String(!valid));
      const wrong = Object.entries(dom.inputs).filter(([, i]) => i.getAttribute('aria-invalid') === 'true').map(([n]) => rangeText(n));
      dom.error.textContent = wrong.join(' ');
      dom.error.hidden = wrong.length === 0;
      if (valid) dispatch({ type: 'write-options', options: { [name]: value } });
    });
  }

  function render(state) {
    const { session: s, settings } = state;
    const shown = writes(s.info) && settings.mode === 'model';
    dom.section.hidden = !shown;
    if (!shown) return;
    const writing = Boolean(s.writing);
    const verb = s.info.translates ? 'Translate' : 'Write';
    const label = writing ? 'Stop' : verb;
    if (dom.button.textContent !== label) dom.button.textContent = label;
    const title = !s.info.encoderDecoder ? 'Let the model write' : s.info.translates ? 'Translate, and watch each word read the source'
      : 'Let the model write its target, and watch each word read the source';
    if (dom.title.textContent !== title) dom.title.textContent = title;
    const what = s.info.encoderDecoder ? `${verb} up to ${settings.write.maxNewTokens} target tokens from the source sentence`
      : `Write up to ${settings.write.maxNewTokens} tokens after the sentence`;
    dom.button.setAttribute('aria-label', writing ? 'Stop writing: what was written stays' : what);
    dom.button.disabled = !writing && !canWrite(state);
    for (const [name, input] of Object.entries(dom.inputs)) {
      if (input.getAttribute('aria-invalid') !== 'true' && Number(input.value) !== settings.write[name] && document.activeElement !== input) {
        input.value = String(settings.write[name]);
      }
    }
    dom.chatControl.hidden = !s.info.chat;
    dom.chat.checked = settings.chat;
    const run = state.result.run?.key === inputsKey(state) ? state.result.run : null;
    // An encoder–decoder's encoder rows are the source: its strip's words are the target's own.
    const rows = predictsNext(state) ? run?.tokens ?? [] : null;
    renderSteps(run?.steps ?? [], rows, state.ui.step);
  }

  /**
   * The strip: buttons added as steps come (the ones there keep their focus), the chosen one
   * pressed. `tokens` are the rows on screen, which hold each step's query; null when they do not
   * (an encoder–decoder's encoder).
   */
  function renderSteps(steps, tokens, chosen) {
    if (drawn.steps === null || steps.length < drawn.steps.length || steps.slice(0, drawn.steps.length).some((s, i) => s !== drawn.steps[i])) {
      dom.steps.replaceChildren();
      drawn.steps = [];
    }
    for (const step of steps.slice(drawn.steps.length)) {
      const item = el('li');
      const button = el('button', 'mh-token write-step');
      button.type = 'button';
      button.append(el('span', 'write-step-token', step.token), el('span', 'write-step-p', percent(step.probability)));
      button.setAttribute('aria-label', `written token ${step.index + 1}, “${step.token}”, ${percent(step.probability)}: show its alternatives and its query row`);
      button.dataset.probability = String(step.probability);
      button.addEventListener('click', () => dispatch({ type: 'choose-step', index: step.index }));
      item.append(button);
      dom.steps.append(item);
    }
    drawn.steps = steps;
    dom.steps.hidden = steps.length === 0;
    [...dom.steps.querySelectorAll('button')].forEach((b, i) => b.setAttribute('aria-pressed', String(i === chosen)));
    const step = chosen === null ? null : steps[chosen] ?? null;
    if (step === drawn.step) return;
    drawn.step = step;
    dom.chosen.hidden = step === null;
    if (!step) return dom.chosen.replaceChildren();
    const before = tokens ? tokens[step.position - 1] ?? '' : step.index > 0 ? steps[step.index - 1].token : 'the decoder\'s start';
    const list = el('ol', 'write-alternatives');
    for (const a of step.alternatives) {
      const item = el('li', a.id === step.id ? 'write-alternative-chosen' : '', '');
      item.append(el('span', 'mh-token', `“${a.token}”`), el('span', 'write-step-p', ` ${percent(a.probability)}`));
      list.append(item);
    }
    return dom.chosen.replaceChildren(
      el('p', '', `“${step.token}” (${percent(step.probability)}) was written after “${before}”. The likeliest tokens there were:`),
      list,
      el('p', 'predictions-hint', tokens ? `Every head marks the row of “${before}”: the query whose attention chose it.`
        : 'Its row is in the decoder\'s and the cross-attention\'s heads: choose one of them under "Attention of the model".'),
    );
  }

  return { render };
}

function rangeText(name) {
  const [low, high, whole] = WRITE_LIMITS[name];
  const label = { maxNewTokens: 'New tokens', temperature: 'Temperature', topK: 'Top-k', topP: 'Top-p', seed: 'The seed' }[name];
  return `${label} must be ${whole ? 'a whole number' : 'a number'} from ${low}${name === 'topP' ? ' (not included)' : ''} to ${high}.`;
}
