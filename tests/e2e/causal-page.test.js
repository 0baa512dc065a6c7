// The causal built-in model on the page, offline, as `npm start` builds it: the picker offers both
// built-in models, the causal one draws its grid with the masked triangle marked and goes into the
// URL, and on an induction example the model's best induction head (as tools/measure_induction.py
// found it, tests/fixtures/models/causal-heads.json) attends from a repeated word to the word after
// its first occurrence, while the predictions after the last token, a hovered token and a chosen
// one are the engine's. Every number is compared with the engine in this Node process.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { launchBrowser, openWhen, screenshot, servedBy } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

let browser, pageServer, engine, model, heads;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, pageServer, model] = await Promise.all([
    launchBrowser(), servePage(), engine.loadModel({ builtin: 'causal' }),
  ]);
  heads = JSON.parse(await readFile(join(REPO, 'tests/fixtures/models/causal-heads.json'), 'utf8'));
}, 120000);

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), pageServer?.close()]);
});

/** Opens the page at `hash`; waits until the model asked for is ready and its sentence drawn. */
function openPage(hash = '') {
  return openWhen(browser, `${pageServer.url}${hash}`,
    () => document.body.dataset.model !== 'loading' && document.body.dataset.state === 'ready');
}

async function waitForTokens(page, tokens) {
  await page.waitForFunction((expected) => document.body.dataset.state === 'ready' &&
    [...document.querySelectorAll('#tokens .mh-token')].map((e) => e.textContent).join('\u0001') === expected,
  tokens.join('\u0001'), { timeout: 20000 });
}

function nextFrames(page) {
  return page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** The predictions panel as { caption, tokens } per list. */
function shownPredictions(page) {
  return page.locator('#predictions figure').evaluateAll((figures) => figures.map((f) => ({
    caption: f.querySelector('figcaption').textContent,
    tokens: [...f.querySelectorAll('.prediction-token')].map((e) => e.textContent),
  })));
}

const quoted = (top) => top.map((p) => `“${p.token}”`);

test('the picker offers the three built-in models; the causal one loads offline, with its triangle marked, and goes into the URL', async () => {
  const { page, problems, responses } = await openPage();
  const builtins = await page.locator('#model-choice optgroup').first().locator('option').evaluateAll((options) => options.map((o) => o.value));
  expect(builtins).toEqual(['builtin:default', 'builtin:causal', 'builtin:reverse']);
  await expect(page.locator('.mh-causal-key').first().isVisible()).resolves.toBe(false); // the default model is a BERT

  await page.selectOption('#model-choice', 'builtin:causal');
  await page.click('#model-load');
  await page.waitForFunction(() => document.body.dataset.model === 'ready' && document.body.dataset.state === 'ready' &&
    document.querySelector('.examples').dataset.kind === 'causal', null, { timeout: 30000 });
  await expect(page.locator('#model-status').textContent()).resolves.toMatch(/^The built-in GPT: GPT-2, /);
  expect(await page.locator('.mh-grid-card').count()).toBe(model.numHeads);
  await expect(page.locator('.mh-causal-key').first().isVisible()).resolves.toBe(true);
  expect(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('model'))).toBe('causal');
  await screenshot(page, 'causal-grid');

  // Offline: both models came from the page's own server.
  expect(responses.filter((r) => !servedBy(r.url, pageServer.url))).toEqual([]);
  expect(responses.filter((r) => r.url.endsWith('.safetensors') && r.status === 200)).toHaveLength(2);
  expect(problems).toEqual([]);
  await page.close();
});

test('on an induction example the best induction head attends to the word after the first occurrence; the predictions are the engine\'s', async () => {
  const { page, problems } = await openPage('#model=causal');
  await expect(page.locator('#model-choice').inputValue()).resolves.toBe('builtin:causal');
  const example = page.locator('.examples button').first();
  const text = await example.textContent();
  await example.click();
  const expected = model.run(text);
  const { tokens } = expected;
  const n = tokens.length;
  await waitForTokens(page, tokens);

  // The example repeats a word: at its second occurrence q, the induction head's strongest weight
  // is on the word that followed the first occurrence f.
  const q = tokens.findLastIndex((t, i) => tokens.indexOf(t) < i && tokens.indexOf(t) + 1 < i);
  const f = tokens.indexOf(tokens[q]);
  expect(q).toBeGreaterThan(0);
  const { layer, head } = heads.best_induction;
  const weights = expected.attention(layer, head);
  const row = weights.subarray(q * n, (q + 1) * n);
  expect(row.indexOf(Math.max(...row))).toBe(f + 1);
  expect(row[f + 1]).toBeGreaterThan(0.3);

  // The page's head view of that head: hovering that cell shows the engine's weight.
  await page.locator('.segmented label').filter({ hasText: /^\s*One head\s*$/ }).click();
  await page.selectOption('#layer', { value: String(layer) });
  await page.selectOption('#head', { value: String(head) });
  await page.waitForFunction(() => document.body.dataset.state === 'ready');
  await page.locator('.mh-head-plot canvas').first().scrollIntoViewIfNeeded();
  const box = await page.locator('.mh-head-plot canvas').first().boundingBox();
  await page.mouse.move(box.x + (f + 1.5) * (box.width / n), box.y + (q + 0.5) * (box.height / n));
  await nextFrames(page);
  await expect(page.locator('.mh-tooltip').textContent()).resolves.toBe(`${tokens[q]} → ${tokens[f + 1]}: ${row[f + 1].toFixed(3)}`);
  await screenshot(page, 'causal-induction-head');

  // After the last token (the repeat of tokens[f - 1] … tokens[f]), the model expects what came
  // next the first time, and the page lists the engine's top five.
  const last = `After “${tokens[n - 1]}” (token ${n}, the last)`;
  await expect(shownPredictions(page)).resolves.toEqual([{ caption: last, tokens: quoted(expected.predictions(n - 1, 5)) }]);
  const earlier = expected.ids.indexOf(expected.ids[n - 1]);
  expect(earlier).toBeLessThan(n - 1);
  expect(expected.predictions(n - 1, 1)[0].id).toBe(expected.ids[earlier + 1]);

  // Pointing at a token adds its list; leaving takes it away; choosing one keeps it; so does the keyboard.
  const button = (k) => page.locator('#tokens button.mh-token').nth(k);
  await button(2).hover();
  await page.waitForFunction(() => document.querySelectorAll('#predictions figure').length === 2);
  await expect(shownPredictions(page)).resolves.toEqual([
    { caption: `After “${tokens[2]}” (token 3)`, tokens: quoted(expected.predictions(2, 5)) },
    { caption: last, tokens: quoted(expected.predictions(n - 1, 5)) },
  ]);
  await page.mouse.move(0, 0);
  await page.waitForFunction(() => document.querySelectorAll('#predictions figure').length === 1);
  await button(4).click();
  await page.mouse.move(0, 0);
  await page.locator('#sentence').focus();
  await page.waitForFunction(() => document.querySelectorAll('#predictions figure').length === 2);
  await expect(shownPredictions(page)).resolves.toEqual([
    { caption: `After “${tokens[4]}” (token 5)`, tokens: quoted(expected.predictions(4, 5)) },
    { caption: last, tokens: quoted(expected.predictions(n - 1, 5)) },
  ]);
  await button(1).focus();
  await page.waitForFunction((caption) => document.querySelector('#predictions figcaption').textContent === caption,
    `After “${tokens[1]}” (token 2)`);
  expect(problems).toEqual([]);
  await page.close();
});
