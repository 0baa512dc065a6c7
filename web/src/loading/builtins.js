// The models inside the package: where each one's three files are, by name.
import { inlined } from '../engine/inlined.js';

// The models inside the package, by name: one literal URL per file, so bundlers see them and ship
// them as assets. Functions, so a classic script (the single-file build, where import.meta.url is
// empty) never resolves them: it has the files inlined.
export const BUILTINS = {
  default: () => inlined.models.default ?? {
    config: new URL('../../models/default/config.json', import.meta.url),
    tokenizer: new URL('../../models/default/tokenizer.json', import.meta.url),
    weights: new URL('../../models/default/model.safetensors', import.meta.url),
  },
  causal: () => inlined.models.causal ?? {
    config: new URL('../../models/causal/config.json', import.meta.url),
    tokenizer: new URL('../../models/causal/tokenizer.json', import.meta.url),
    weights: new URL('../../models/causal/model.safetensors', import.meta.url),
  },
  // A small BART trained to reverse a sequence of words: its cross-attention shows the alignment.
  reverse: () => inlined.models.reverse ?? {
    config: new URL('../../models/reverse/config.json', import.meta.url),
    tokenizer: new URL('../../models/reverse/tokenizer.json', import.meta.url),
    weights: new URL('../../models/reverse/model.safetensors', import.meta.url),
  },
};

/** The names of the built-in models, for `{ builtin: name }`. */
export const BUILTIN_NAMES = Object.freeze(Object.keys(BUILTINS));
