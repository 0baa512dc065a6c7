// Vite builds the page into build/demo: `node tools/build.js demo` (npm start runs it), and
// `vite preview` serves it there (npm start) cross-origin isolated, the headers a browser asks
// before it shares memory with workers, so the engine runs on every core. Vite is
// needed because the worker imports @huggingface/tokenizers and d3-scale-chromatic by name, and a
// module worker cannot use an import map. Relative asset URLs (base './') let the built page be
// served from any path. The worker is an ES module: the engine loads its .wasm and the tokenizer
// with dynamic import(), which IIFE workers cannot split.
import { fileURLToPath } from 'node:url';

/**
 * `vite preview` knows no type for .safetensors and sends an empty one, which its compression
 * takes for text: the weights then come gzipped, and Chromium mixes the gzipped whole file with the
 * plain byte ranges the engine reads the header by (its cache then hands the page the compressed
 * bytes). Typed application/octet-stream, as the Hub types them, they are sent as they are.
 */
const weightsAsBinary = {
  name: 'weights-as-binary',
  configurePreviewServer(server) {
    server.middlewares.use((request, response, next) => {
      if (request.url.split('?')[0].endsWith('.safetensors')) {
        const setHeader = response.setHeader;
        response.setHeader = function (name, value) {
          const binary = name.toLowerCase() === 'content-type' && !value;
          return setHeader.call(this, name, binary ? 'application/octet-stream' : value);
        };
      }
      next();
    });
  },
};

export default {
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  build: {
    outDir: fileURLToPath(new URL('../../build/demo', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
  worker: { format: 'es' },
  plugins: [weightsAsBinary],
  preview: {
    host: '127.0.0.1',
    port: 8080,
    headers: {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    },
  },
};
