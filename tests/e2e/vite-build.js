// Builds a Vite app for the e2e tests: `node tests/e2e/vite-build.js CONFIG OUT_DIR` runs a
// production build of the config's root into OUT_DIR. The tests use temporary folders, so they
// always test the current sources, except examples.test.js, which builds the page into build/demo
// as `npm start` does, because examples/iframe.html points there.
// Tests run this in a child process rather than calling vite's build() themselves: inside Jest's
// module sandbox, rolldown's native binding rejects the plugin objects Vite hands it ("Value is
// none of these types `BindingPluginOptions`, `BindingBuiltinPlugin`").
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';

const [configPath, outDir] = process.argv.slice(2);
if (!configPath || !outDir) {
  console.error('usage: node tests/e2e/vite-build.js CONFIG OUT_DIR');
  process.exit(2);
}
const { default: config } = await import(pathToFileURL(resolve(configPath)).href);
await build({ ...config, configFile: false, logLevel: 'warn', build: { ...config.build, outDir, emptyOutDir: true } });
