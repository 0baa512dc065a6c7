// The entry of the single-file build, dist/multihead.js: one classic <script> that needs no other
// file, for hosts that cannot serve .wasm files or block module scripts, and for file:// pages.
// It inlines both WASM builds and the three built-in models, registers <multihead-view>, and exposes the
// package's API as the global `multihead`. tools/build.js bundles it with esbuild.
import simd from '../../dist/multihead-simd.wasm';
import scalar from '../../dist/multihead-scalar.wasm';
import defaultConfig from '../models/default/config.json';
import defaultTokenizer from '../models/default/tokenizer.json';
import defaultWeights from '../models/default/model.safetensors';
import causalConfig from '../models/causal/config.json';
import causalTokenizer from '../models/causal/tokenizer.json';
import causalWeights from '../models/causal/model.safetensors';
import reverseConfig from '../models/reverse/config.json';
import reverseTokenizer from '../models/reverse/tokenizer.json';
import reverseWeights from '../models/reverse/model.safetensors';
import { inline } from './engine/inlined.js';

inline({
  wasm: { simd, scalar },
  models: {
    default: { config: defaultConfig, tokenizer: defaultTokenizer, weights: defaultWeights },
    causal: { config: causalConfig, tokenizer: causalTokenizer, weights: causalWeights },
    reverse: { config: reverseConfig, tokenizer: reverseTokenizer, weights: reverseWeights },
  },
});

export * from './index.js';
export { MultiheadView } from './element/element.js';
