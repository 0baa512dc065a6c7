// Issue 43 in the browser. In Chromium, each hostile chat template (tests/js/hostile/templates.js)
// ends with an Error naming its bound, and the tab writes on afterwards. On the page as built, from
// a fake Hub: a model whose template is hostile runs its sentence as a chat only to say why it
// cannot, and runs it as text; a download that stalls is given up after 30 s without a byte, the
// worker replaced, the model on screen kept; and a writing whose worker falls silent is stopped the
// same way. Each time the page says what happened and runs the next sentence.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { HOSTILE_TEMPLATES } from '../js/hostile/templates.js';
import { launchBrowser, openWhen, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const QWEN2 = join(REPO, 'tests/fixtures/checkpoints/qwen2');
const file = (name) => readFileSync(join(QWEN2, name));
const HOSTILE = '{% for i in range(100000000) %}x{% endfor %}';

let browser, pageServer, repoServer, hub;
beforeAll(async () => {
  const qwen2 = Object.fromEntries(['config.json', 'tokenizer.json', 'model.safetensors', 'generation_config.json'].map((name) => [name, file(name)]));
  const tokenizerConfig = JSON.parse(file('tokenizer_config.json'));
  [browser, pageServer, repoServer, hub] = await Promise.all([launchBrowser(), servePage(), startServer({ root: REPO }), startFakeHub({
    repos: {
      'evil/template': { files: { ...qwen2, 'tokenizer_config.json': JSON.stringify({ ...tokenizerConfig, chat_template: HOSTILE }) } },
      'slow/stall': { folder: QWEN2, stallAfter: 1000 },
    },
  })]);
}, 120000);
afterAll(async () => {
  await Promise.all([browser?.close(), pageServer?.close(), repoServer?.close(), hub?.close()]);
});

test('in Chromium, every hostile chat template ends with an Error naming its bound, and the model writes on', async () => {
  const { result, error, problems } = await browser.run(`${repoServer.url}tests/e2e/pages/templates.html`, 'hostile-templates');
  expect(error).toBeUndefined();
  const lines = new Map(result.map((line) => [line.name, line]));
  for (const [name, , message] of HOSTILE_TEMPLATES) {
    expect([name, lines.get(name)?.message]).toEqual([name, expect.stringMatching(message)]);
    expect(lines.get(name).message).toMatch(/^the model's chat template /);
  }
  expect(lines.get('afterwards')).toEqual({ name: 'afterwards', written: 2, tokens: 13 });
  // How long each took in this browser, for the record (not asserted: this machine's timings are noisy).
  console.log(result.filter((line) => line.ms !== undefined).map((line) => `${line.name}: ${line.ms} ms`).join('\n'));
  expect(problems).toEqual([]);
}, 120000);

/** The page pointed at the fake Hub, once it has drawn. */
function open(hash) {
  return openWhen(browser, `${pageServer.url}?hub=${encodeURIComponent(hub.url)}${hash}`,
    () => document.body.dataset.state === 'ready' && document.body.dataset.model !== 'loading', { timeout: 60000 });
}

const status = (page) => page.locator('#status').textContent();
const tokensShown = (page) => page.locator('#tokens .mh-token').evaluateAll((list) => list.map((t) => t.textContent));

test('a model whose chat template is hostile says so for a chat, and runs the sentence as text', async () => {
  const { page, problems } = await open('#model=evil/template&sentence=Hello');
  expect(await tokensShown(page)).toEqual(['Hello']);
  await page.check('#write-chat');
  await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 30000 });
  await expect(status(page)).resolves.toBe('That sentence could not be run: the model\'s chat template asked for range(100000000), ' +
    'which has 100000000 items, more than the 100000 a render may loop over');
  await screenshot(page, 'page-hostile-template');
  await page.uncheck('#write-chat');
  await page.waitForFunction(() => document.body.dataset.state === 'ready');
  expect(await tokensShown(page)).toEqual(['Hello']);
  expect(problems).toEqual([]);
  await page.close();
}, 120000);

test('a download that stalls is given up after 30 s without a byte: the page says so, restarts its worker and keeps its model', async () => {
  const { page, problems } = await open('#sentence=The+cat+sat.');
  await page.selectOption('#model-choice', 'other');
  await page.fill('#model-id', 'slow/stall');
  await page.press('#model-id', 'Enter');
  await page.waitForFunction(() => !document.querySelector('#model-progress').hidden);
  const started = Date.now();
  await page.waitForFunction(() => document.body.dataset.model === 'error', null, { timeout: 60000 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(29000);
  await expect(page.locator('#model-message').textContent()).resolves.toBe('Could not load slow/stall: nothing came from it for 30 s ' +
    '(a download that stalled, or a file the page\'s worker could not finish reading), so the page restarted its worker. The built-in BERT is still loaded.');
  await screenshot(page, 'page-stalled-download');
  await page.fill('#sentence', 'The dog ran.');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && document.querySelector('#tokens').textContent.includes('dog'), null, { timeout: 30000 });
  // The stalled request is cut off with the worker that made it.
  expect(problems.filter((p) => !/ERR_ABORTED|ERR_FAILED/.test(p))).toEqual([]);
  await page.close();
}, 120000);
