// `npm start`'s server: `vite preview` over the page global-setup.js built, as package.json runs
// it (page-server.js), on a port of its own. The page it serves is cross-origin isolated, so the
// engine runs on every core, and its files come with the types and ranges the engine needs.
import { readdirSync } from 'node:fs';
import { PAGE_DIR, launchBrowser, openWhen } from './browser.js';
import { START_SCRIPT, servePage } from './page-server.js';

let browser, server;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchBrowser(), servePage()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.close()]);
});

test('npm start is vite preview over the page Vite builds', () => {
  expect(START_SCRIPT).toBe('vite preview --config web/demo/vite.config.js');
});

// CI machines set CI, and then Vite colours even a pipe: the port came wrapped in bold, the address
// was never found, and every page test timed out.
test('the server is found when Vite colours its output, as it does where CI is set', async () => {
  const coloured = await servePage({ CI: 'true' });
  try {
    expect((await fetch(coloured.url)).status).toBe(200);
  } finally {
    await coloured.close();
  }
});

test('npm start serves the page cross-origin isolated, so it runs on every core', async () => {
  const { page, problems } = await openWhen(browser, server.url, () => document.body.dataset.state === 'ready');
  const [isolated, threads, cores] = await page.evaluate(() => [crossOriginIsolated, Number(document.body.dataset.threads), navigator.hardwareConcurrency]);
  expect([isolated, threads]).toEqual([true, cores]);
  expect(problems).toEqual([]);
  await page.close();
});

test('its .wasm files are application/wasm, and its weights come uncompressed and answer a range request', async () => {
  const assets = readdirSync(`${PAGE_DIR}/assets`);
  const wasm = assets.find((name) => name.endsWith('.wasm'));
  const weights = assets.find((name) => name.endsWith('.safetensors'));
  expect((await fetch(`${server.url}assets/${wasm}`)).headers.get('content-type')).toBe('application/wasm');
  // Gzipped, the whole file and its ranges disagree, and Chromium's cache hands the page the
  // compressed bytes (vite.config.js's weightsAsBinary).
  const whole = await fetch(`${server.url}assets/${weights}`, { headers: { 'Accept-Encoding': 'gzip' } });
  expect([whole.headers.get('content-type'), whole.headers.get('content-encoding')]).toEqual(['application/octet-stream', null]);
  await whole.body.cancel();
  const range = await fetch(`${server.url}assets/${weights}`, { headers: { Range: 'bytes=0-7' } });
  expect([range.status, (await range.arrayBuffer()).byteLength]).toEqual([206, 8]);
});
