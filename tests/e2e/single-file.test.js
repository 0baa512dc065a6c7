// The single-file build (dist/multihead.js) loaded by a classic <script> from a file:// page in
// headless Chromium: it fetches nothing, the element draws both built-in models, and the global API
// computes what the package computes in this Node process.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = pathToFileURL(fileURLToPath(new URL('./pages/single-file.html', import.meta.url))).href;
let browser, engine;

beforeAll(async () => {
  // The single-file build carries the plain SIMD build, not the relaxed one Chromium would get.
  [browser, engine] = await Promise.all([launchBrowser(), loadEngine({ relaxedSimd: false })]);
});

afterAll(async () => {
  engine?.dispose();
  await browser?.close();
});

/** Opens the page at `url`; resolves to { page, problems, responses, shown }, once both elements and the script are done. */
async function openPage(url) {
  const { page, problems, responses } = await browser.open(url);
  await page.waitForFunction(() => (window.__done || window.__error) &&
    ['view', 'causal'].every((id) => document.getElementById(id).state !== 'loading'), null, { timeout: 30000 });
  const shown = await page.evaluate(() => {
    const view = document.getElementById('view');
    return {
      error: window.__error ?? null,
      state: view.state,
      title: view.shadowRoot.querySelector('.mh-head-title')?.textContent,
      framePadding: getComputedStyle(view.shadowRoot.querySelector('.frame')).paddingTop,
      tokens: view.tokens,
      weights: Array.from(view.attention[1][0]),
      global: window.__result,
      causal: {
        state: document.getElementById('causal').state,
        tokens: document.getElementById('causal').tokens,
        weights: Array.from(document.getElementById('causal').attention[1][0]),
        masked: !document.getElementById('causal').shadowRoot.querySelector('.mh-causal-key').hidden,
      },
    };
  });
  return { page, problems, responses, shown };
}

test('one classic script from file:// draws <multihead-view> with either built-in model and runs the API, fetching nothing else', async () => {
  const expected = (await engine.loadModel()).run('The cat sat on the mat.');
  const causalText = 'the red car and the old bridge . the red car and the old';
  const causal = (await engine.loadModel({ builtin: 'causal' })).run(causalText);
  const { page, problems, responses, shown } = await openPage(PAGE);
  expect(shown.error).toBeNull();
  expect(shown.state).toBe('ready');
  expect(shown.title).toBe('Layer 2, head 1');
  expect(shown.tokens).toEqual(expected.tokens);
  expect(shown.global.tokens).toEqual(expected.tokens);
  expect(shown.global.build).toBe('simd');
  const want = [...expected.attention(1, 0)];
  for (const weights of [shown.weights, shown.global.weights]) {
    expect(Math.max(...weights.map((w, i) => Math.abs(w - want[i])))).toBeLessThan(1e-6);
  }
  // The causal built-in model is inlined too: model="causal" draws it, with its masked triangle's key.
  expect(shown.causal.state).toBe('ready');
  expect(shown.causal.tokens).toEqual(causal.tokens);
  expect(shown.causal.masked).toBe(true);
  const wantCausal = [...causal.attention(1, 0)];
  expect(Math.max(...shown.causal.weights.map((w, i) => Math.abs(w - wantCausal[i])))).toBeLessThan(1e-6);
  // Only the page and the script itself were loaded.
  expect(responses.map((r) => r.url.split('/').pop())).toEqual(['single-file.html', 'multihead.js']);
  expect(problems).toEqual([]);
  await page.close();
});

test('a host whose Content-Security-Policy forbids eval and inline styles still gets styled views and the API', async () => {
  // The policy allows the page's one inline script by its hash, WebAssembly, and nothing else inline.
  const html = await readFile(fileURLToPath(PAGE), 'utf8');
  const script = html.match(/<script>([^<]*)<\/script>/)[1]; // not the comment's '<script> (no module…'
  const hash = createHash('sha256').update(script).digest('base64');
  const policy = `default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'sha256-${hash}'; img-src data:`;
  const server = await startServer({ root: REPO, headers: { 'Content-Security-Policy': policy } });
  try {
    const { page, problems, shown } = await openPage(`${server.url}tests/e2e/pages/single-file.html`);
    expect(shown.error).toBeNull();
    expect([shown.state, shown.causal.state]).toEqual(['ready', 'ready']);
    expect(shown.global.tokens).toEqual(shown.tokens);
    // The element's own CSS applies (its frame is padded 8px), and the browser refused nothing.
    expect(shown.framePadding).toBe('8px');
    expect(problems).toEqual([]);
    await page.close();
  } finally {
    await server.close();
  }
});
