// Vite config for the bundle test: a production build of index.html + main.js in which the bare
// specifier 'multihead' resolves to this repository's web/src/index.js, as an installed package
// would. tests/e2e/loading.test.js builds it with ../vite-build.js into a temporary folder;
// `npx vite build tests/e2e/bundle --outDir /tmp/somewhere` also works by hand.
import { fileURLToPath } from 'node:url';

export default {
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    // A regex, so only the exact name is redirected and not, say, 'multihead-extra'.
    alias: [{ find: /^multihead$/, replacement: fileURLToPath(new URL('../../../web/src/index.js', import.meta.url)) }],
  },
  build: { target: 'es2022' },
};
