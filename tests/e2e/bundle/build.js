// Builds the bundle app for production: `node tests/e2e/bundle/build.js OUT_DIR`.
// loading.test.js runs this in a child process rather than calling vite's build() itself:
// inside Jest's module sandbox, rolldown's native binding rejects the plugin objects Vite hands
// it ("Value is none of these types `BindingPluginOptions`, `BindingBuiltinPlugin`").
import { build } from 'vite';
import config from './vite.config.js';

const [outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node tests/e2e/bundle/build.js OUT_DIR');
  process.exit(2);
}
await build({ ...config, configFile: false, logLevel: 'warn', build: { ...config.build, outDir, emptyOutDir: true } });
