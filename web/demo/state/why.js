// What the Why? view patches from, as pure functions of the state: the corrupted prompt (the one
// the reader typed, else the one the worker suggested) and the patch sweep on screen, which must
// be of that prompt and of what the view explains now.
import { inputsKey } from './needed.js';

/** The corrupted prompt of the Why? view: typed, or suggested with the run's answer, or ''. */
export function corruptedText(state) {
  return state.settings.why.corrupted ?? state.result.run?.why?.suggested?.text ?? '';
}

/**
 * What a patch sweep depends on, as one string: the inputs of the run (inputsKey), the corrupted
 * prompt and what the Why? view explains.
 */
export function patchKey(state, corrupted = corruptedText(state)) {
  const { position, token, against } = state.settings.why;
  return JSON.stringify([inputsKey(state), corrupted, position, token, against]);
}

/** The sweep the run holds, when it is of the Why? view's choices now; else null. */
export function shownPatch(state) {
  const patch = state.result.run?.patch;
  return patch && patch.key === patchKey(state) ? patch : null;
}
