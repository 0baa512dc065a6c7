// tests/e2e/packed-app built by Vite and by esbuild against the npm pack tarball installed in a
// fresh folder, then opened in headless Chromium: the element draws and the API computes what the
// repository does. Vite ships the package's .wasm and model files itself. esbuild does not follow
// `new URL(file, import.meta.url)`, so the esbuild app copies the .wasm files beside its bundle,
// where the glue looks for them, and hosts the model folder, naming it in the element's `model`;
// without the threaded build's files it runs on one thread.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { packAndInstall, run } from '../js/pack.js';
import { launchBrowser } from './browser.js';

let dir, browser, server, esbuildServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'multihead-app-'));
  await packAndInstall(dir);
  await cp(fileURLToPath(new URL('./packed-app', import.meta.url)), join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'vite.config.js'), `export default { root: ${JSON.stringify(join(dir, 'src'))}, build: { target: 'es2022' } };`);
  // A child process: rolldown's native binding does not work inside Jest's sandbox (see vite-build.js).
  await run(process.execPath, [fileURLToPath(new URL('./vite-build.js', import.meta.url)), join(dir, 'vite.config.js'), join(dir, 'out')]);
  await buildWithEsbuild(join(dir, 'esbuild-out'));
  [browser, server, esbuildServer] = await Promise.all([
    launchBrowser(), startServer({ root: join(dir, 'out') }), startServer({ root: join(dir, 'esbuild-out') }),
  ]);
}, 180000);

afterAll(async () => {
  await Promise.all([browser?.close(), server?.close(), esbuildServer?.close()]);
  await rm(dir, { recursive: true, force: true });
});

async function buildWithEsbuild(out) {
  const { build } = await import('esbuild');
  await build({ entryPoints: [join(dir, 'src/main.js')], outdir: out, bundle: true, format: 'esm', logLevel: 'error',
    absWorkingDir: dir });
  const installed = join(dir, 'node_modules/multihead');
  for (const build of ['relaxed', 'simd', 'scalar']) await cp(join(installed, `dist/multihead-${build}.wasm`), join(out, `multihead-${build}.wasm`));
  await mkdir(join(out, 'model'));
  await cp(join(installed, 'web/models/default'), join(out, 'model'), { recursive: true });
  const html = await readFile(join(dir, 'src/index.html'), 'utf8');
  await writeFile(join(out, 'index.html'), html.replace('<multihead-view id="view"', '<multihead-view id="view" model="model/"'));
}

test.each([['Vite', () => server], ['esbuild', () => esbuildServer]])('%s builds an app that imports multihead and multihead/element from the tarball, and it loads and renders', async (bundler, which) => {
  const result = await browser.run(which().url, `packed-${bundler}-app`);
  expect(result.error).toBeUndefined();
  const engine = await loadEngine();
  const expected = (await engine.loadModel()).run('The cat sat on the mat.');
  expect(result.result.tokens).toEqual(expected.tokens);
  expect(result.result.weights).toEqual(Array.from(expected.attention(1, 1)));
  expect(result.result.element).toEqual({ tokens: expected.tokens, title: 'Layer 2, head 2' });
  // Both apps are served cross-origin isolated. esbuild does not copy the threaded build's worker
  // script, so that app runs on one thread, says why, and the browser logs the failed request.
  // (On a one-core machine neither tries threads.)
  const { cores } = result.result.threads;
  const fellBack = bundler === 'esbuild' && cores > 1;
  expect(result.result.threads).toEqual(fellBack
    ? { got: 1, error: expect.stringMatching(/could not load .*multihead-relaxed-threads\.worker\.js: HTTP 404/), cores }
    : { got: cores, error: null, cores });
  expect(result.problems).toEqual(fellBack ? [expect.stringMatching(/404 .*multihead-relaxed-threads\.worker\.js/)] : []);
  engine.dispose();
});

test('the tarball\'s single-file build draws the element in a file:// page with one classic script', async () => {
  await writeFile(join(dir, 'single.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">' +
    '<multihead-view id="view" view="grid" sentence="The cat sat on the mat."></multihead-view>' +
    '<script src="node_modules/multihead/dist/multihead.js"></script>');
  const { page, problems } = await browser.open(pathToFileURL(join(dir, 'single.html')).href);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.getElementById('view').state), null, { timeout: 30000 });
  const engine = await loadEngine();
  const expected = (await engine.loadModel()).run('The cat sat on the mat.');
  expect(await page.evaluate(() => [document.getElementById('view').state, document.getElementById('view').tokens]))
    .toEqual(['ready', expected.tokens]);
  expect(problems).toEqual([]);
  engine.dispose();
  await page.close();
});
