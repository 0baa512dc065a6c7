// The single-file build (dist/multihead.js) loaded by a classic <script> from a file:// page in
// headless Chromium: it fetches nothing, the element draws, and the global API computes what the
// package computes in this Node process.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { launchBrowser } from './browser.js';

const PAGE = pathToFileURL(fileURLToPath(new URL('./pages/single-file.html', import.meta.url))).href;
let browser, engine;

beforeAll(async () => {
  [browser, engine] = await Promise.all([launchBrowser(), loadEngine()]);
});

afterAll(async () => {
  engine?.dispose();
  await browser?.close();
});

test('one classic script from file:// draws <multihead-view> and runs the model, fetching nothing else', async () => {
  const expected = (await engine.loadModel()).run('The cat sat on the mat.');
  const { page, problems, responses } = await browser.open(PAGE);
  await page.waitForFunction(() => (window.__done || window.__error) && document.getElementById('view').state !== 'loading', null, { timeout: 30000 });
  const shown = await page.evaluate(() => {
    const view = document.getElementById('view');
    return {
      error: window.__error ?? null,
      state: view.state,
      title: view.shadowRoot.querySelector('.mh-head-title')?.textContent,
      tokens: view.tokens,
      weights: Array.from(view.attention[1][0]),
      global: window.__result,
    };
  });
  expect(shown.error).toBeNull();
  expect(shown.state).toBe('ready');
  expect(shown.title).toBe('Layer 2, head 1');
  expect(shown.tokens).toEqual(expected.tokens);
  expect(shown.global.tokens).toEqual(expected.tokens);
  const want = [...expected.attention(1, 0)];
  for (const weights of [shown.weights, shown.global.weights]) {
    expect(Math.max(...weights.map((w, i) => Math.abs(w - want[i])))).toBeLessThan(1e-6);
  }
  // Only the page and the script itself were loaded.
  expect(responses.map((r) => r.url.split('/').pop())).toEqual(['single-file.html', 'multihead.js']);
  expect(problems).toEqual([]);
  await page.close();
});
