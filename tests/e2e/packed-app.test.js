// tests/e2e/packed-app built by Vite against the npm pack tarball installed in a fresh folder, then
// opened in headless Chromium: the element draws and the API computes what the repository does.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { packAndInstall, run } from '../js/pack.js';
import { launchBrowser } from './browser.js';

let dir, browser, server;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'multihead-app-'));
  await packAndInstall(dir);
  await cp(fileURLToPath(new URL('./packed-app', import.meta.url)), join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'vite.config.js'), `export default { root: ${JSON.stringify(join(dir, 'src'))}, build: { target: 'es2022' } };`);
  // A child process: rolldown's native binding does not work inside Jest's sandbox (see vite-build.js).
  await run(process.execPath, [fileURLToPath(new URL('./vite-build.js', import.meta.url)), join(dir, 'vite.config.js'), join(dir, 'out')]);
  [browser, server] = await Promise.all([launchBrowser(), startServer({ root: join(dir, 'out') })]);
}, 180000);

afterAll(async () => {
  await Promise.all([browser?.close(), server?.close()]);
  await rm(dir, { recursive: true, force: true });
});

test('a Vite app importing multihead and multihead/element from the tarball loads and renders', async () => {
  const result = await browser.run(server.url, 'packed-vite-app');
  expect(result.error).toBeUndefined();
  const engine = await loadEngine();
  const expected = (await engine.loadModel()).run('The cat sat on the mat.');
  expect(result.result.tokens).toEqual(expected.tokens);
  expect(result.result.weights).toEqual(Array.from(expected.attention(1, 1)));
  expect(result.result.element).toEqual({ tokens: expected.tokens, title: 'Layer 2, head 2' });
  expect(result.problems).toEqual([]);
  engine.dispose();
});
