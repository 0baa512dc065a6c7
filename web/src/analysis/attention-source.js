// The attention weights the analysis functions read (rollout.js, head-roles.js), checked once:
// model.run's result, or any object with the same shape, { numLayers, numHeads, tokens,
// attention(layer, head) } (layers and heads, the counts' former names, are read where numLayers
// and numHeads are missing), with `keyTokens` when the keys are other tokens than the queries (an
// encoder–decoder's cross-attention: target rows over source columns). Sizes are read once; each
// head's weights are checked to be n × nKeys finite numbers in [0, 1] when first read, and kept,
// so a getter or a changing answer cannot make one analysis see two different runs.
import { checkInteger, checkObject, describe } from '../check.js';

const MAX_TOKENS = 4096; // the engine's own limit (kMaxTokens)

/** A checked view of `result`'s attention; `caller` names the function for messages. */
export function attentionOf(result, caller) {
  checkObject(`${caller}'s result`, result);
  const count = (name, former) => {
    const value = result[name];
    return value === undefined ? [result[former], former] : [value, name];
  };
  const [layers, layersName] = count('numLayers', 'layers');
  const [heads, headsName] = count('numHeads', 'heads');
  const { tokens } = result;
  const attention = result.attention;
  checkInteger(`${caller}: result.${layersName}`, layers, 1, 1024);
  checkInteger(`${caller}: result.${headsName}`, heads, 1, 1024);
  if (!Array.isArray(tokens)) throw new TypeError(`${caller}: result.tokens must be an Array, got ${describe(tokens)}`);
  const n = checkInteger(`${caller}: result.tokens.length`, tokens.length, 1, MAX_TOKENS);
  const { keyTokens = tokens } = result;
  if (!Array.isArray(keyTokens)) throw new TypeError(`${caller}: result.keyTokens must be an Array, got ${describe(keyTokens)}`);
  const nKeys = checkInteger(`${caller}: result.keyTokens.length`, keyTokens.length, 1, MAX_TOKENS);
  if (typeof attention !== 'function') {
    throw new TypeError(`${caller}: result.attention must be a function (layer, head) → Float32Array, got ${describe(attention)}`);
  }
  const read = new Map(); // layer * heads + head → Float32Array (n × nKeys)
  return {
    layers, heads, n, nKeys, tokens: tokens.slice(), keyTokens: keyTokens.slice(),
    cross: keyTokens !== tokens, // the keys are other tokens than the queries
    checkLayer(layer) {
      return checkInteger('layer', layer, 0, layers - 1);
    },
    attention(layer, head) {
      const key = layer * heads + head;
      if (!read.has(key)) read.set(key, checkWeights(attention.call(result, layer, head), n, nKeys, `${caller}: result.attention(${layer}, ${head})`));
      return read.get(key);
    },
  };
}

function checkWeights(weights, n, nKeys, what) {
  if (!(weights instanceof Float32Array) && !(weights instanceof Float64Array)) {
    throw new TypeError(`${what} must be a Float32Array, got ${describe(weights)}`);
  }
  if (weights.length !== n * nKeys) {
    throw new RangeError(`${what} has ${weights.length} values, expected ${n === nKeys ? 'n × n' : 'n × nKeys'} = ${n} × ${nKeys}`);
  }
  const copy = new Float32Array(weights); // a copy (Float32Array.from would walk an iterator, 10× slower)
  for (let k = 0; k < copy.length; k++) {
    if (!(copy[k] >= 0 && copy[k] <= 1)) {
      throw new RangeError(`${what}[${k}] is ${copy[k]}: attention weights are from 0 to 1`);
    }
  }
  return copy;
}
