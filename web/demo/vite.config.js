// Vite builds the page into build/demo: `node tools/build.js demo` (npm start runs it). Vite is
// needed because the worker imports @huggingface/tokenizers and d3-scale-chromatic by name, and a
// module worker cannot use an import map. Relative asset URLs (base './') let the built page be
// served from any path. The worker is an ES module: the engine loads its .wasm and the tokenizer
// with dynamic import(), which IIFE workers cannot split.
import { fileURLToPath } from 'node:url';

export default {
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  build: {
    outDir: fileURLToPath(new URL('../../build/demo', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
  worker: { format: 'es' },
};
