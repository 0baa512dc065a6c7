// The entry of the single-file build, dist/multihead.js: one classic <script> that needs no other
// file, for hosts that cannot serve .wasm files or block module scripts, and for file:// pages.
// It inlines both WASM builds and the default model, registers <multihead-view>, and exposes the
// package's API as the global `multihead`. tools/build.js bundles it with esbuild.
import simd from '../../dist/multihead-simd.wasm';
import scalar from '../../dist/multihead-scalar.wasm';
import config from '../models/default/config.json';
import tokenizer from '../models/default/tokenizer.json';
import weights from '../models/default/model.safetensors';
import { inline } from './inlined.js';

inline({ wasm: { simd, scalar }, model: { config, tokenizer, weights } });

export * from './index.js';
export { MultiheadView } from './element.js';
