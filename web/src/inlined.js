// Files the single-file build (dist/multihead.js, made by `node tools/build.js single`) carries
// inside its script: the WASM builds and the default model. Everywhere else this stays empty and
// the package fetches its files beside its modules, which keeps those builds small and cacheable.
export const inlined = {
  wasm: {}, // { simd?: Uint8Array, scalar?: Uint8Array }
  model: null, // { config, tokenizer, weights } as loadModel takes them
};

/** Called once by the single-file build's entry, before anything loads. */
export function inline({ wasm, model }) {
  Object.assign(inlined.wasm, wasm);
  inlined.model = model;
}
