// Why did the model say that: direct logit attribution, the logit lens and activation patching,
// over the C++ engine's Model::explain, Model::lens and Patching (cpp/include/multihead/). Model
// and ModelResult (model.js) call these; the page's Why? section draws them.
import { checkInteger, checkObject, describe } from '../check.js';
import { orThrow } from '../engine/wasm-glue.js';
import { likeliest, topIndices } from './likeliest.js';

/**
 * An id from `value`: an integer id of the vocabulary, or a string that the tokenizer makes into
 * exactly one token (" William", not "William's"). `encode(text, atLeast)` gives { ids, complete }
 * of a text without special tokens, read only as far as `atLeast` tokens where the text is longer
 * (tokenizer.js's cut): two tell that it is not one token, so a huge string is never read whole.
 */
export function tokenId(name, value, vocabSize, encode) {
  if (typeof value === 'number') return checkInteger(name, value, 0, vocabSize - 1);
  if (typeof value !== 'string') throw new TypeError(`${name} must be a token id or a string of one token, got ${describe(value)}`);
  const { ids, complete } = encode(value, 2);
  if (ids.length !== 1) {
    const shown = value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}… (${value.length} characters)` : JSON.stringify(value);
    throw new RangeError(`${name} must be one token of the model's vocabulary; ${shown} is ${complete ? '' : 'more than '}${ids.length} tokens` +
      (complete && ids.length ? ` (${ids.join(', ')})` : ''));
  }
  return checkInteger(name, ids[0], 0, vocabSize - 1);
}

/**
 * The parts of the logit (difference) at one position, as contributions() returns them:
 * C++'s Float64Array of parts (embeddings, per layer its heads then its MLP, biases) arranged
 * by what wrote them.
 */
export function contributionsFrom({ parts, logit }, { numLayers, numHeads, position, token, against, tokenText, softcap }) {
  const heads = [], mlps = new Float64Array(numLayers);
  for (let layer = 0; layer < numLayers; layer++) {
    const first = 1 + layer * (numHeads + 1);
    heads.push(Float64Array.from(parts.subarray(first, first + numHeads)));
    mlps[layer] = parts[first + numHeads];
  }
  let total = 0;
  for (const part of parts) total += part;
  return Object.freeze({
    position,
    token: Object.freeze({ id: token, text: tokenText(token) }),
    against: against === -1 ? null : Object.freeze({ id: against, text: tokenText(against) }),
    heads: Object.freeze(heads),
    mlps,
    embeddings: parts[0],
    biases: parts[parts.length - 1],
    total,
    logit,
    softcap: softcap > 0 ? softcap : null,
  });
}

/** The logit lens from C++'s rows (layers + 1, d): each row's k likeliest tokens. */
export function lensFrom(rows, dModel, k, logitsOf, tokenText) {
  const entries = [];
  for (let i = 0; i * dModel < rows.length; i++) {
    entries.push(Object.freeze(likeliest(logitsOf(rows.subarray(i * dModel, (i + 1) * dModel)), k, tokenText).top.map(Object.freeze)));
  }
  return Object.freeze(entries);
}

const OVER = ['heads', 'positions'];
const PATCH_OPTIONS = ['clean', 'corrupted', 'token', 'against', 'over', 'position', 'onProgress', 'signal'];
// How long a patch sweep computes before it lets the event loop run (a Stop, a progress bar).
const SLICE_MS = 30;

/**
 * Model.patch(): the clean and corrupted prompts' ids, the metric's token, against and position,
 * then one patched run per head or per (layer, position), each from the layer it patches.
 * `model` gives module, native(), numLayers, numHeads, vocabSize, maxTokens, causal, maskId,
 * encode(text, special, atLeast) → { ids, tokens, complete } (tokenizer.js's, read as far as
 * atLeast tokens), tokenText(id) and logits(ids, position).
 */
export async function patch(model, options) {
  checkObject('options', options);
  const unknown = Object.keys(options).filter((key) => !PATCH_OPTIONS.includes(key));
  if (unknown.length) throw new TypeError(`patch has no option ${unknown.join(', ')}; its options are ${PATCH_OPTIONS.join(', ')}`);
  const { clean, corrupted, over = 'heads', onProgress, signal } = options;
  if (!OVER.includes(over)) throw new TypeError(`over must be 'heads' or 'positions', got ${describe(over)}`);
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError(`onProgress must be a function, got ${describe(onProgress)}`);
  const a = prompt(model, 'clean', clean), b = prompt(model, 'corrupted', corrupted);
  if (a.ids.length !== b.ids.length) {
    throw new RangeError(`the clean prompt has ${a.ids.length} tokens and the corrupted one ${b.ids.length}: ` +
      'patching puts one run\'s activations into the other position by position, so they need the same number');
  }
  const n = a.ids.length;
  const position = options.position === undefined ? defaultPosition(model, a) : checkInteger('position', options.position, 0, n - 1);
  const encodeOne = (text, atLeast) => model.encode(text, false, atLeast);
  const cleanTop = topIndices(model.logits(a.ids, position), 2);
  const token = options.token === undefined ? cleanTop[0] : tokenId('token', options.token, model.vocabSize, encodeOne);
  let against;
  if (options.against !== undefined) {
    against = tokenId('against', options.against, model.vocabSize, encodeOne);
  } else {
    const corruptedTop = topIndices(model.logits(b.ids, position), 1)[0];
    against = corruptedTop !== token ? corruptedTop : cleanTop.find((id) => id !== token);
  }
  if (against === token) throw new RangeError(`token and against are both ${token} (${JSON.stringify(model.tokenText(token))}): the logit difference would be 0`);
  signal?.throwIfAborted();

  const started = performance.now();
  const native = orThrow(model.module.createPatching(model.native(), Int32Array.from(a.ids), Int32Array.from(b.ids), position, token, against));
  try {
    const ends = model.module.patchingEnds(native);
    const rows = model.numLayers, columns = over === 'heads' ? model.numHeads : n;
    const total = rows * columns;
    const values = Array.from({ length: rows }, () => new Float64Array(columns));
    const range = ends.clean - ends.corrupted;
    let done = 0, slice = performance.now();
    onProgress?.({ done, total });
    for (let layer = 0; layer < rows; layer++) {
      for (let i = 0; i < columns; i++) {
        const difference = orThrow(over === 'heads' ? model.module.patchingHead(native, layer, i) : model.module.patchingPosition(native, layer, i));
        values[layer][i] = (difference - ends.corrupted) / range;
        done++;
        if (performance.now() - slice > SLICE_MS) {
          onProgress?.({ done, total });
          await new Promise((resolve) => setTimeout(resolve, 0));
          signal?.throwIfAborted();
          slice = performance.now();
        }
      }
    }
    onProgress?.({ done, total });
    return Object.freeze({
      over, position, values: Object.freeze(values),
      token: Object.freeze({ id: token, text: model.tokenText(token) }),
      against: Object.freeze({ id: against, text: model.tokenText(against) }),
      clean: ends.clean, corrupted: ends.corrupted,
      tokens: Object.freeze({ clean: Object.freeze(a.tokens), corrupted: Object.freeze(b.tokens) }),
      runs: total, elapsedMs: performance.now() - started,
    });
  } finally {
    native.delete();
  }
}

// A prompt's { ids, tokens }: a text, tokenized as run() tokenizes it (read no further than one
// token past the model's length, which it cannot run), or token ids as they are.
function prompt(model, name, value) {
  if (typeof value === 'string') {
    const encoded = model.encode(value, true, model.maxTokens + 1);
    if (!encoded.complete || encoded.ids.length > model.maxTokens) {
      throw new RangeError(`the ${name} prompt has more than the model's ${model.maxTokens} tokens: patching runs each prompt whole`);
    }
    return encoded;
  }
  if (!Array.isArray(value) && !(value instanceof Int32Array)) {
    throw new TypeError(`${name} must be a string or an Array or Int32Array of token ids, got ${describe(value)}`);
  }
  const ids = Array.from(value, (id, i) => checkInteger(`${name}[${i}]`, id, 0, model.vocabSize - 1));
  return { ids, tokens: ids.map((id) => model.tokenText(id)) };
}

// The last position of a causal model; the first mask token of a masked one.
function defaultPosition(model, { ids }) {
  if (model.causal) return ids.length - 1;
  const at = model.maskId === null ? -1 : ids.indexOf(model.maskId);
  if (at < 0) throw new RangeError('the clean prompt has no mask token, so give position: a masked model predicts the word at a mask');
  return at;
}
