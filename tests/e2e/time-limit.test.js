// The page's defence against a run that never ends. First the time limit itself
// (web/demo/worker/limited-worker.js) around a worker whose tokenizer.json really hangs, with a limit
// of one second set by its test page; then the page as built, whose worker script is served with
// a line that hangs it on one sentence (a stand-in for a hostile tokenizer the page cannot load
// today): the page's own 10 s limit stops it and says why, and Cancel, by mouse or keyboard, stops
// it sooner. In both, the hung worker is terminated and a fresh one answers the next sentence. A
// task outside requests (a load, a writing) is watched for silence the same way: on the test page
// with a limit of 1.5 s, and on the page as built with a writing whose worker hangs.
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { launchBrowser, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const HANGS = 'a'.repeat(40) + '!'; // hours of backtracking for (a+)+$
const SENTENCE = 'The cat sat on the mat.';

let browser, repoServer, pageServer, engine, model;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, repoServer, pageServer, model] = await Promise.all([
    launchBrowser(), startServer({ root: REPO }), servePage(), engine.loadModel(),
  ]);
});

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), repoServer?.close(), pageServer?.close()]);
});

/**
 * Records the page's own workers as they start and close. The engine's thread workers (blob: URLs,
 * started by an engine worker on an isolated page, and closed with it) are left out.
 */
function watchWorkers(page) {
  const workers = [];
  page.on('worker', (worker) => {
    if (worker.url().startsWith('blob:')) return;
    const record = { worker, closed: false };
    worker.on('close', () => { record.closed = true; });
    workers.push(record);
  });
  return {
    all: workers,
    /** Waits until `count` workers have started, and all but the last have closed. */
    async settle(count) {
      for (let k = 0; k < 200 && !(workers.length === count && workers.slice(0, -1).every((w) => w.closed)); k++) {
        await page.waitForTimeout(50);
      }
      return workers.map((w) => w.closed);
    },
  };
}

test('a worker stuck in a catastrophic tokenizer regex is stopped at its limit, and a fresh one takes over', async () => {
  const opened = await browser.open('about:blank');
  const { page, problems } = opened;
  const workers = watchWorkers(page);
  await page.goto(`${repoServer.url}tests/e2e/pages/time-limit.html?limit=1000`);
  await page.waitForFunction(() => window.__done || window.__error, null, { timeout: 30000 });
  expect(await page.evaluate(() => window.__error)).toBeUndefined();

  // The tokenizer's own tokens: lowercased, and "mat" is not in the default vocabulary.
  const tokens = ['[CLS]', 'the', 'cat', 'sat', 'on', 'the', '[UNK]', '.', '[SEP]'];
  expect(await page.evaluate((t) => window.run(t), SENTENCE)).toEqual({ tokens });
  expect(await page.evaluate((t) => window.run(t), HANGS)).toEqual({ stopped: 'time', limit: 1000 });
  expect(await workers.settle(2)).toEqual([true, false]);
  expect(await page.evaluate((t) => window.run(t), SENTENCE)).toEqual({ tokens });

  // Cancel does the same, before the limit.
  const cancelled = await page.evaluate((t) => {
    const stopped = window.run(t);
    setTimeout(window.cancel, 200);
    return stopped;
  }, HANGS);
  expect(cancelled).toEqual({ stopped: 'cancel', limit: 1000 });
  expect(await workers.settle(3)).toEqual([true, true, false]);
  expect(await page.evaluate((t) => window.run(t), SENTENCE)).toEqual({ tokens });
  expect(problems).toEqual([]);
  await page.close();
});

test('a task outside requests whose worker falls silent is stopped after its limit, and a fresh worker takes over', async () => {
  const { page, problems } = await browser.open('about:blank');
  const workers = watchWorkers(page);
  await page.goto(`${repoServer.url}tests/e2e/pages/time-limit.html?limit=1000`);
  await page.waitForFunction(() => window.__done || window.__error, null, { timeout: 30000 });
  const { silentFor } = await page.evaluate((t) => window.silent(t, 1500), HANGS);
  expect(silentFor).toBeGreaterThanOrEqual(1500);
  expect(await workers.settle(2)).toEqual([true, false]);
  expect(await page.evaluate((t) => window.run(t), SENTENCE)).toEqual({ tokens: ['[CLS]', 'the', 'cat', 'sat', 'on', 'the', '[UNK]', '.', '[SEP]'] });
  expect(problems).toEqual([]);
  await page.close();
});

/**
 * The page as built at `hash`, with its worker made to hang on a message for which `hangsOn` (a
 * JavaScript expression of `data`) is true, by default a run of HANGS; waits until it has drawn its
 * first sentence.
 */
async function openHangingPage(hash = '', hangsOn = `data.text === ${JSON.stringify(HANGS)}`) {
  const { page, problems } = await browser.open('about:blank');
  await page.route('**/assets/worker-*.js', async (route) => {
    // Playwright's request context may reuse a keep-alive socket that vite preview has closed after
    // 5 s idle (microsoft/playwright#42701): that fetch fails with ECONNRESET, and one more opens a
    // new socket. Seen once in a clean-clone run, on all three pages of this file (its tests wait 10 s).
    const response = await route.fetch().catch(() => route.fetch());
    // Runs before the worker's own message handler, and never returns on HANGS: as a hostile
    // tokenizer would, it blocks the worker's one thread, which only terminate() ends.
    const hang = `self.addEventListener('message', ({ data }) => { if (${hangsOn}) for (;;); });\n`;
    await route.fulfill({ response, body: hang + await response.text() });
  });
  const workers = watchWorkers(page);
  await page.goto(`${pageServer.url}${hash}`);
  await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30000 })
    .catch((error) => { throw new Error(`${error.message}; problems: ${problems.join('; ') || 'none'}`); });
  return { page, problems, workers };
}

const statusText = (page) => page.locator('#status').textContent();

async function waitForTokens(page, tokens) {
  await page.waitForFunction((expected) => document.body.dataset.state === 'ready' &&
    [...document.querySelectorAll('#tokens .mh-token')].map((e) => e.textContent).join('\u0001') === expected,
  tokens.join('\u0001'), { timeout: 20000 });
}

test('the page stops a run at its time limit, says why, keeps the sentence and runs the next one', async () => {
  const { page, problems, workers } = await openHangingPage();
  await page.fill('#sentence', HANGS);
  await page.waitForFunction((text) => document.querySelector('#status').textContent === text, `Working on ${HANGS.length} characters…`);
  await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 20000 });
  await expect(statusText(page)).resolves.toBe('Stopped after 10 s: tokenizing this text took too long (the page allows ' +
    `10 s for ${HANGS.length} characters), as a tokenizer with a pathological pattern, or a hostile chat template, can. The page restarted its worker; ` +
    'the sentence is kept: change it to try again.');
  expect(await page.evaluate(() => [document.querySelector('#sentence').value, document.querySelector('#cancel').hidden,
    document.querySelector('#view').childElementCount, document.querySelector('#tokens').childElementCount])).toEqual([HANGS, true, 0, 0]);
  expect(await workers.settle(2)).toEqual([true, false]);
  await screenshot(page, 'page-time-limit');

  await page.fill('#sentence', SENTENCE);
  await waitForTokens(page, model.run(SENTENCE).tokens);
  expect(problems).toEqual([]);
  await page.close();
});

test('Cancel, reached by Tab or by Escape in the field, stops a run in flight and keeps the sentence', async () => {
  const { page, problems, workers } = await openHangingPage();
  await page.fill('#sentence', HANGS);
  await page.waitForFunction(() => !document.querySelector('#cancel').hidden);
  await screenshot(page, 'page-cancel');
  // From the field, Tab reaches Cancel (after the examples); Enter presses it.
  for (let k = 0; k < 10 && await page.evaluate(() => document.activeElement.id) !== 'cancel'; k++) await page.keyboard.press('Tab');
  await expect(page.evaluate(() => document.activeElement.id)).resolves.toBe('cancel');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.state === 'cancelled');
  await expect(statusText(page)).resolves.toMatch(
    /^Cancelled after \d\.\d s\. The page restarted its worker; the sentence is kept: change it to run it again\.$/);
  // The button went away under the focus, which goes back to the sentence.
  expect(await page.evaluate(() => [document.activeElement.id, document.querySelector('#sentence').value,
    document.querySelector('#cancel').hidden])).toEqual(['sentence', HANGS, true]);
  expect(await workers.settle(2)).toEqual([true, false]);

  // Escape in the field does the same.
  await page.fill('#sentence', SENTENCE);
  await waitForTokens(page, model.run(SENTENCE).tokens);
  await page.fill('#sentence', HANGS);
  await page.waitForFunction(() => document.body.dataset.state === 'busy');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.body.dataset.state === 'cancelled');
  expect(await workers.settle(3)).toEqual([true, true, false]);

  // Text typed while a run hangs is run by the fresh worker once the hung one is stopped.
  await page.fill('#sentence', HANGS);
  await page.waitForFunction(() => !document.querySelector('#cancel').hidden);
  await page.fill('#sentence', 'She gave him the book.');
  await page.click('#cancel');
  await waitForTokens(page, model.run('She gave him the book.').tokens);
  expect(await workers.settle(4)).toEqual([true, true, true, false]);
  expect(problems).toEqual([]);
  await page.close();
});

test('a writing whose worker falls silent is stopped at its limit: the page says so, restarts its worker and writes again', async () => {
  const { page, problems, workers } = await openHangingPage('#model=causal&sentence=The+cat+sat.', "data.type === 'write' && data.text === 'The cat sat.'");
  await page.click('#write-button');
  await page.waitForFunction(() => document.body.dataset.state === 'writing');
  await page.waitForFunction(() => document.body.dataset.state !== 'writing', null, { timeout: 30000 });
  await expect(statusText(page)).resolves.toMatch(/^Wrote 0 tokens \(stopped by an error: the page's worker sent nothing for 1\d s, so the page restarted it\)\.$/);
  expect(await workers.settle(2)).toEqual([true, false]);
  await screenshot(page, 'page-silent-writing');
  // Another sentence does not hang the fresh worker: it writes.
  await page.fill('#sentence', 'The dog ran.');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && document.querySelector('#tokens').textContent.includes('dog'), null, { timeout: 30000 });
  await page.click('#write-button');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && document.querySelector('#write-steps li'), null, { timeout: 30000 });
  await expect(statusText(page)).resolves.toMatch(/^Wrote 32 tokens/);
  expect(problems).toEqual([]);
  await page.close();
});
