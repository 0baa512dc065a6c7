// The worker's part of the Why? view: the answer to a RunRequest's `why` and `queryKeys` from the
// run on screen, and the patch sweep (model.patch over every head), which posts its progress and
// stops between runs when the page cancels it.
import { suggestCorruption } from '../../src/analysis/corruption.js';
import { explainAt, fitPosition, whyQueryKeys } from '../../src/views/why-data.js';

/**
 * The Why? answer for `result` of `model` (the page's `text`): the parts of the logit and the lens
 * at the position asked (or an `error` for the page to show by its fields), and a corruption to
 * suggest for patching.
 * @param {import('./messages.js').WhyRequest} request
 * @returns {import('./messages.js').WhyAnswer}
 */
export function explainAnswer(model, result, text, { position, token, against }) {
  const answer = explainAt(model, result, position, { token, against });
  if (!answer.contributions) return answer;
  const length = model.tokenize(text).ids.length;
  const sameLength = (candidate) => model.tokenize(candidate).ids.length === length;
  return { ...answer, suggested: suggestCorruption(text, answer.contributions.token.text, sameLength) };
}

/** The query–key map of one head of `result`, the layer and head kept within the model's. */
export function queryKeysAnswer(result, { layer, head }) {
  return whyQueryKeys(result, Math.min(layer, result.numLayers - 1), Math.min(head, result.numHeads - 1));
}

/**
 * The head sweep of a Patch: the clean ids are those of `clean` (the run on screen), the corrupted
 * ones the run of the corrupted text followed by the same written ids. Resolves to the result
 * with the corrupted run's tokens, to post.
 * @param {import('./messages.js').Patch} request
 */
export async function patchHeads(model, clean, corruptedRun, { position, token, against }, { onProgress, signal }) {
  const options = { clean: clean.ids, corrupted: corruptedRun.ids, over: 'heads', position: fitPosition(model, clean, position), onProgress, signal };
  if (token !== '') options.token = token;
  if (against !== '') options.against = against;
  const patched = await model.patch(options);
  return {
    values: patched.values.map((v) => Float64Array.from(v)), token: { ...patched.token }, against: { ...patched.against },
    clean: patched.clean, corrupted: patched.corrupted, corruptedTokens: [...patched.tokens.corrupted], position: patched.position,
    runs: patched.runs, elapsedMs: patched.elapsedMs,
  };
}
