// Every file in examples/ works as its comment says: the plain HTML embed from file://, the iframe
// of the built page, ES modules in the browser with an import map, and the Node script. Each must
// show what the engine computes in this Node process.
import { execFile } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
let browser, server, engine, model;

beforeAll(async () => {
  // The iframe example shows the page as `npm start` builds it, in build/demo (built by global-setup.js).
  engine = await loadEngine();
  [browser, server, model] = await Promise.all([launchBrowser(), startServer({ root: REPO }), engine.loadModel()]);
}, 120000);

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), server?.close()]);
});

/** The word each query looks at most in layer 2, head `head` (from 0), as the examples print it. */
function strongest(r, head, arrow) {
  const n = r.tokens.length;
  const w = r.attention(1, head);
  return r.tokens.map((t, q) => {
    const row = Array.from(w.subarray(q * n, (q + 1) * n));
    return `${t}${arrow}${r.tokens[row.indexOf(Math.max(...row))]}`;
  });
}

async function elementTokens(page) {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.getElementById('view')?.state), null, { timeout: 30000 });
  return page.evaluate(() => [document.getElementById('view').state, document.getElementById('view').tokens]);
}

test('plain-html.html draws its element from file:// with the single-file build', async () => {
  const { page, problems } = await browser.open(pathToFileURL(`${REPO}examples/plain-html.html`).href);
  expect(await elementTokens(page)).toEqual(['ready', model.run('The cat sat on the mat because it was tired.').tokens]);
  expect(problems).toEqual([]);
  await page.close();
});

test('esm-browser.html imports the package through its import map, draws and computes', async () => {
  const { page, problems } = await browser.open(`${server.url}examples/esm-browser.html`);
  const r = model.run('We hold these truths to be self-evident.');
  expect(await elementTokens(page)).toEqual(['ready', r.tokens]);
  await page.waitForFunction(() => document.getElementById('strongest').textContent !== '');
  expect(await page.locator('#strongest').textContent()).toBe(`Layer 2, head 4: ${strongest(r, 3, ' → ').join(', ')}`);
  expect(problems).toEqual([]);
  await page.close();
});

test('iframe.html shows the page preset to its sentence, view, layer and head', async () => {
  const { page, problems } = await browser.open(`${server.url}examples/iframe.html`);
  const frame = page.frameLocator('#view');
  await frame.locator('body[data-state="ready"]').waitFor({ timeout: 30000 });
  expect(await frame.locator('#tokens .mh-token').allTextContents()).toEqual(model.run('She gave him the book.').tokens);
  expect(await frame.locator('.mh-head-title').textContent()).toBe('Layer 2, head 4');
  expect(problems).toEqual([]);
  await page.close();
});

test('node.mjs prints the word each word looks at most, for every head of layer 2', async () => {
  const { stdout } = await run(process.execPath, [`${REPO}examples/node.mjs`, 'The dog ran.'], { cwd: REPO });
  const r = model.run('The dog ran.');
  expect(stdout.trim().split('\n')).toEqual([
    `${r.tokens.length} tokens: ${r.tokens.join(' ')}`,
    ...[0, 1, 2, 3].map((h) => `layer 2, head ${h + 1}: ${strongest(r, h, '→').join(' ')}`),
  ]);
});
