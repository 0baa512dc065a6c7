// The Why? view's controls (index.html's #why), drawn from the state: which position's prediction
// is explained, the token and the one against it, and the corrupted prompt to patch from, with the
// head sweep's progress bar and Stop. The view itself (web/src/views/why-view.js) draws the maps;
// this panel dispatches the reader's choices and asks the session for the sweep.
import { inputsKey } from '../state/needed.js';
import { corruptedText, patchKey, shownPatch } from '../state/why.js';

export function createWhyPanel(store, session) {
  const { dispatch } = store;
  const $ = (id) => document.getElementById(id);
  const dom = {
    root: $('why'), position: $('why-position'), positionNote: $('why-position-note'), token: $('why-token'), against: $('why-against'),
    candidates: $('why-candidates'), error: $('why-error'), corrupted: $('why-corrupted'), suggested: $('why-suggested'),
    patch: $('why-patch'), bar: $('why-bar'), done: $('why-done'), stop: $('why-stop'),
  };
  const why = (value) => dispatch({ type: 'why', value });
  dom.position.addEventListener('change', () => why({ position: dom.position.value === '' ? null : Number(dom.position.value) }));
  // A token is asked for once typed (Enter or leaving the field), not at each keystroke: half a word is no token.
  dom.token.addEventListener('change', () => why({ token: dom.token.value }));
  dom.against.addEventListener('change', () => why({ against: dom.against.value }));
  dom.corrupted.addEventListener('change', () => why({ corrupted: dom.corrupted.value }));
  dom.patch.addEventListener('click', () => {
    const text = dom.corrupted.value;
    if (text !== corruptedText(store.state)) why({ corrupted: text });
    if (text.trim() === '') return;
    session.patch(text);
  });
  dom.stop.addEventListener('click', () => session.cancelPatch());
  let drawnTokens = null;

  function render(state) {
    const { info, patching, patchFailed } = state.session;
    const run = state.result.run;
    dom.root.hidden = !(state.settings.view === 'why' && state.settings.mode === 'model' && info);
    $('export-csv').hidden = state.settings.view !== 'why';
    if (dom.root.hidden || !run || run.key !== inputsKey(state)) return;
    const { position, token, against } = state.settings.why;
    const answer = run.why;
    positions(run.tokens, position === null ? answer?.position ?? null : null);
    dom.position.value = position === null || position >= run.tokens.length ? '' : String(position);
    dom.positionNote.textContent = !info.causal && !run.tokens.includes(info.maskToken ?? '\u0000') && position === null
      ? `A masked model predicts the word at a position: type ${info.maskToken ?? 'its mask token'} in the sentence to hide one, or choose a position.` : '';
    keep(dom.token, token);
    keep(dom.against, against);
    // The likeliest tokens at the position, to choose as the token or against it.
    const top = answer?.lens?.cells.at(-1)?.[answer.lens.positions.indexOf(answer.position)] ?? [];
    dom.candidates.replaceChildren(...top.map((entry) => Object.assign(document.createElement('option'), { value: entry.token })));
    dom.error.hidden = !answer?.error;
    dom.error.textContent = answer?.error ?? '';
    for (const control of [dom.token, dom.against, dom.corrupted, dom.patch]) control.disabled = !info.hasLmHead;
    keep(dom.corrupted, corruptedText(state));
    const suggested = answer?.suggested;
    // The same note whether or not the reader edited the prompt: a note that vanished on the edit's
    // change event would move the Patch button between the press and the release of a click on it.
    dom.suggested.textContent = suggested ? `Suggested: “${suggested.from}” changed to “${suggested.to}”. Edit it as you like: it must keep the number of tokens.`
        : answer?.contributions ? 'No one-word change keeps the number of tokens here: type a corrupted prompt.' : '';
    const sweeping = patching && patching.key === patchKey(state) ? patching : null;
    dom.patch.hidden = Boolean(sweeping);
    dom.bar.hidden = dom.stop.hidden = !sweeping;
    if (sweeping) {
      dom.bar.max = sweeping.total || 1;
      dom.bar.value = sweeping.done;
      dom.done.textContent = `${sweeping.done} of ${sweeping.total} runs`;
    } else {
      const patch = shownPatch(state);
      const took = patch && (patch.elapsedMs < 1000 ? `${Math.round(patch.elapsedMs)} ms` : `${(patch.elapsedMs / 1000).toFixed(1)} s`);
      dom.done.textContent = patch ? `${patch.runs} runs in ${took}.`
        : patchFailed?.key === patchKey(state) ? patchFailed.message : '';
    }
    // Stop hides when the sweep ends: the keyboard's focus goes to the button that starts one.
    if (!sweeping && document.activeElement === document.body && drawn.sweeping) dom.patch.focus();
    drawn.sweeping = Boolean(sweeping);
  }
  const drawn = { sweeping: false };

  /** The position choices: the default (the one explained when none is chosen), then each token. */
  function positions(tokens, explained) {
    if (tokens !== drawnTokens) {
      drawnTokens = tokens;
      const option = (value, text) => Object.assign(document.createElement('option'), { value, textContent: text });
      dom.position.replaceChildren(option('', 'default'), ...tokens.map((t, i) => option(String(i), `${i + 1}: ${t}`)));
    }
    dom.position.options[0].textContent = explained === null ? 'default' : `default (${explained + 1}: ${tokens[explained]})`;
  }

  /** Sets a field's value, unless the reader is typing in it. */
  function keep(field, value) {
    if (document.activeElement !== field && field.value !== value) field.value = value;
  }

  return { render };
}
