// Files the single-file build (dist/multihead.js, made by `node tools/build.js single`) carries
// inside its script: the WASM builds and the built-in models. Everywhere else this stays empty and
// the package fetches its files beside its modules, which keeps those builds small and cacheable.
export const inlined = {
  wasm: {}, // { simd?: Uint8Array, scalar?: Uint8Array }
  models: {}, // { default?, causal?, reverse? }: { config, tokenizer, weights } each, as loadModel takes them
};

/** Called once by the single-file build's entry, before anything loads. */
export function inline({ wasm, models }) {
  Object.assign(inlined.wasm, wasm);
  Object.assign(inlined.models, models);
}
