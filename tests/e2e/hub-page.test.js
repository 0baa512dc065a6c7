// The page and the element loading models from the Hub, offline: the page as `npm start` builds
// it, on one origin, and tests/hub/fake-hub.js on another (the Hub's URL layout, its 302 to a
// CDN host, CORS and Range), serving the checkpoint fixtures. It checks the progress bar, Cancel,
// the second load from the browser's cache with the fake Hub stopped, the Hub's error answers as
// messages on the page, the 12-layer × 12-head model's grid of 144 heads with its [MASK]
// predictions (compared with the engine in this Node process), and elements sharing one download.
// Load and paint times are printed, not asserted.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { loadEngine } from '../../web/src/index.js';
import { launchBrowser, openWhen, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CHECKPOINTS = join(REPO, 'tests/fixtures/checkpoints');
const BIG = 'multihead-test/bert-12x12';
const MASKED = 'The cat sat on the [MASK] near the [MASK].';

let browser, pageServer, repoServer, engine, bert, gpt2, fixtureFiles;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, pageServer, repoServer, bert, gpt2] = await Promise.all([
    launchBrowser(), servePage(), startServer({ root: REPO }),
    engine.loadModel(join(CHECKPOINTS, 'bert-12x12')), engine.loadModel(join(CHECKPOINTS, 'gpt2-legacy')),
  ]);
  const read = (file) => readFile(join(CHECKPOINTS, 'bert-12x12', file));
  fixtureFiles = { config: await read('config.json'), tokenizer: await read('tokenizer.json'), weights: await read('model.safetensors') };
}, 120000);

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), pageServer?.close(), repoServer?.close()]);
});

/** A fake Hub with the fixtures the tests name, and the error repositories. */
function fakeHub(options = {}) {
  return startFakeHub({
    repos: {
      [BIG]: { folder: join(CHECKPOINTS, 'bert-12x12') },
      'multihead-test/gpt2-legacy': { folder: join(CHECKPOINTS, 'gpt2-legacy') },
      'multihead-test/roberta': { folder: join(CHECKPOINTS, 'roberta') },
      'org/gated': { status: 401 },
      'multihead-test/bin-only': { files: { 'config.json': fixtureFiles.config, 'tokenizer.json': fixtureFiles.tokenizer, 'pytorch_model.bin': 'weights' } },
      'multihead-test/xlnet': { files: { 'config.json': '{"model_type":"xlnet"}', 'tokenizer.json': fixtureFiles.tokenizer, 'model.safetensors': fixtureFiles.weights } },
    },
    ...options,
  });
}

/** Opens the page pointed at `hub`; waits for the built-in model's first drawing. */
function openPage(hub, hash = '', options) {
  return openWhen(browser, `${pageServer.url}?hub=${encodeURIComponent(hub.url)}${hash}`,
    () => document.body.dataset.state === 'ready' || document.body.dataset.model, options);
}

/** Chooses "Another Hub model…", types `id` and presses Enter. */
async function loadId(page, id) {
  await page.selectOption('#model-choice', 'other');
  await page.fill('#model-id', id);
  await page.press('#model-id', 'Enter');
}

/** Waits until the load in flight has ended; resolves to body[data-model]. */
async function loadEnded(page) {
  await page.waitForFunction(() => ['ready', 'error', 'cancelled'].includes(document.body.dataset.model) &&
    document.querySelector('#model-progress').hidden, null, { timeout: 60000 });
  return page.evaluate(() => document.body.dataset.model);
}

const text = (page, selector) => page.locator(selector).textContent();
// The engine cancels the requests it no longer needs (the rest of a body read only for its header,
// the other files once one has failed), which Chromium reports as ERR_ABORTED: not problems.
const real = (problems) => problems.filter((p) => !/ net::ERR_ABORTED$/.test(p));
const drawn = (page) => page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30000 });

test('a Hub model loads with a progress bar in megabytes, shows its 144 heads and its [MASK] predictions', async () => {
  const hub = await fakeHub({ throttle: { bytesPerSecond: 120000, chunkSize: 8000 } });
  const { page, problems } = await openPage(hub);
  await drawn(page);
  // Every change of the progress text, recorded in the page as it happens.
  await page.evaluate(() => {
    window.progressTexts = [];
    new MutationObserver(() => window.progressTexts.push([document.querySelector('#model-bytes').textContent,
      document.querySelector('#model-bar').value, document.querySelector('#model-bar').max]))
      .observe(document.querySelector('#model-bytes'), { childList: true, characterData: true, subtree: true });
  });
  const started = Date.now();
  await loadId(page, BIG);
  await page.waitForFunction(() => !document.querySelector('#model-progress').hidden);
  // The built-in model keeps answering while the new one downloads.
  await page.fill('#sentence', 'The dog ran.');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && document.querySelectorAll('.mh-grid-card').length === 4);
  await screenshot(page, 'hub-progress');
  await expect(loadEnded(page)).resolves.toBe('ready');
  const loadMs = Date.now() - started;

  const texts = await page.evaluate(() => window.progressTexts);
  const weights = texts.filter(([t]) => t.includes('model.safetensors'));
  const size = (await readFile(join(CHECKPOINTS, 'bert-12x12/model.safetensors'))).length;
  expect(weights.length).toBeGreaterThan(2);
  for (const [t] of weights) expect(t).toMatch(new RegExp(`^${BIG}: model\\.safetensors \\d+\\.\\d\\d / ${(size / 1e6).toFixed(2)} MB$`));
  const values = weights.map(([, value]) => value);
  expect(values).toEqual([...values].sort((a, b) => a - b)); // never backwards
  expect(weights.at(-1)[2]).toBe(size); // the bar's maximum is the file's size
  expect(await text(page, '#model-status')).toMatch(/^multihead-test\/bert-12x12 \(from 127\.0\.0\.1:\d+, not the Hugging Face Hub\): BERT, 12 layers × 12 heads, d_model 36, up to 64 tokens; masked LM/);
  expect(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('model'))).toBe(BIG);

  // The grid of every layer: 144 heads.
  await page.fill('#sentence', MASKED);
  const expected = bert.run(MASKED);
  await page.waitForFunction((n) => document.body.dataset.state === 'ready' && document.querySelectorAll('#tokens .mh-token').length === n,
    expected.tokens.length, { timeout: 20000 });
  const paintMs = await page.evaluate(() => {
    const select = document.querySelector('#layer');
    const start = performance.now();
    select.value = 'all';
    select.dispatchEvent(new Event('change'));
    return new Promise((done) => requestAnimationFrame(() => done(performance.now() - start)));
  });
  expect(await page.locator('.mh-grid-layer').count()).toBe(12);
  expect(await page.locator('.mh-grid-card canvas[role="img"]').count()).toBe(144);
  await expect(page.locator('.mh-grid-card canvas[role="img"]').nth(143).getAttribute('aria-label')).resolves.toBe('layer 12 head 12');
  expect(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('layer'))).toBe('all');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1100);
  await screenshot(page, 'hub-grid-144');

  // One list of predictions per [MASK], as the engine here computes them.
  const masks = expected.tokens.flatMap((t, i) => (t === '[MASK]' ? [i] : []));
  expect(masks).toHaveLength(2);
  const shown = await page.locator('#predictions figure').evaluateAll((figures) => figures.map((f) => ({
    caption: f.querySelector('figcaption').textContent,
    tokens: [...f.querySelectorAll('.prediction-token')].map((e) => e.textContent),
    percents: [...f.querySelectorAll('.prediction-p')].map((e) => e.textContent),
  })));
  expect(shown).toEqual(masks.map((position) => {
    const top = expected.predictions(position, 5);
    return {
      caption: `[MASK] (token ${position + 1})`,
      tokens: top.map((p) => `“${p.token}”`),
      percents: top.map((p) => (p.probability >= 0.001 ? `${(p.probability * 100).toFixed(1)}%` : '< 0.1%')),
    };
  }));
  console.log(`fake Hub, throttled to 120 kB/s: ${BIG} (${(size / 1e3).toFixed(0)} kB) loaded in ${loadMs} ms; ` +
    `the grid of 144 heads at ${expected.tokens.length} tokens painted in ${paintMs.toFixed(1)} ms`);
  expect(real(problems)).toEqual([]);
  await page.close();
  await hub.close();
}, 120000);

test('Cancel stops a download, says so, and keeps the model on screen; nothing half-loaded is cached', async () => {
  const hub = await fakeHub({ throttle: { bytesPerSecond: 40000, chunkSize: 4000 } });
  const { page, problems } = await openPage(hub);
  await drawn(page);
  await loadId(page, 'multihead-test/roberta');
  await page.waitForFunction(() => document.querySelector('#model-bytes').textContent.includes('model.safetensors'), null, { timeout: 30000 });
  // Keyboard: Tab from the id field reaches Cancel loading, past Load (disabled) and the folder button.
  await page.focus('#model-id');
  for (let k = 0; k < 6 && await page.evaluate(() => document.activeElement.id) !== 'model-cancel'; k++) await page.keyboard.press('Tab');
  await expect(page.evaluate(() => document.activeElement.id)).resolves.toBe('model-cancel');
  await page.keyboard.press('Enter');
  await expect(loadEnded(page)).resolves.toBe('cancelled');
  await expect(text(page, '#model-message')).resolves.toBe('Loading multihead-test/roberta was cancelled. The built-in BERT is still loaded.');
  expect(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('model'))).toBeNull();
  expect(await page.locator('.mh-grid-card').count()).toBe(4); // the built-in model's grid, still drawn
  const cached = await page.evaluate(async () => (await (await caches.open('multihead-models')).keys()).map((r) => r.url));
  expect(cached.filter((url) => url.includes('roberta') && url.endsWith('model.safetensors'))).toEqual([]);
  expect(real(problems)).toEqual([]); // the download Cancel stopped is one of the aborted requests
  await page.close();
  await hub.close();
}, 120000);

test('a second load comes from the cache with the fake Hub stopped; the cached model can be deleted', async () => {
  let hub = await fakeHub();
  let { page, problems } = await openPage(hub, `#model=${encodeURIComponent('multihead-test/gpt2-legacy')}`);
  await expect(loadEnded(page)).resolves.toBe('ready');
  // The list refreshes after the load ends, on its own promise: wait for it rather than race it.
  await page.waitForFunction(() => /^Downloaded models: \d+, /.test(document.getElementById('model-cache-summary').textContent));
  await page.close();
  const hubUrl = hub.url;
  await hub.close();

  // The same ?hub= (the cache is keyed by URL), but nothing answers there now.
  const opened = await browser.open(`${pageServer.url}?hub=${encodeURIComponent(hubUrl)}#model=multihead-test%2Fgpt2-legacy` +
    `&sentence=${encodeURIComponent('The old man saw the river')}`);
  ({ page, problems } = opened);
  const started = Date.now();
  await expect(loadEnded(page)).resolves.toBe('ready');
  const ms = Date.now() - started;
  expect(opened.responses.filter((r) => r.url.startsWith(hubUrl))).toEqual([]);
  await drawn(page);
  const expected = gpt2.run('The old man saw the river');
  await page.waitForFunction((n) => document.querySelectorAll('#tokens button.mh-token').length === n, expected.tokens.length);
  // A causal model: its heatmaps' hatched triangle has a key, and its examples are a causal model's.
  await expect(page.locator('.mh-causal-key').isVisible()).resolves.toBe(true);
  await expect(page.locator('.examples').getAttribute('data-kind')).resolves.toBe('causal');
  // What it expects after the last token, then after a hovered one (gone when the pointer leaves),
  // a focused one, and a chosen one (which stays).
  const caption = () => page.locator('#predictions figcaption').allTextContents();
  const last = `After “${expected.tokens.at(-1)}” (token ${expected.tokens.length}, the last)`;
  await expect(caption()).resolves.toEqual([last]);
  await page.locator('#tokens button.mh-token').nth(2).hover();
  await page.waitForFunction(() => document.querySelectorAll('#predictions figure').length === 2);
  await expect(caption()).resolves.toEqual([`After “${expected.tokens[2]}” (token 3)`, last]);
  const hovered = await page.locator('#predictions figure').first().locator('.prediction-token').allTextContents();
  expect(hovered).toEqual(expected.predictions(2, 5).map((p) => `“${p.token}”`));
  await page.mouse.move(0, 0);
  await page.waitForFunction(() => document.querySelectorAll('#predictions figure').length === 1);
  await page.locator('#tokens button.mh-token').nth(3).focus();
  await page.waitForFunction(() => document.querySelectorAll('#predictions figure').length === 2);
  await expect(caption()).resolves.toEqual([`After “${expected.tokens[3]}” (token 4)`, last]);
  // The pointer passing over another token and leaving it gives the focused token's list back.
  await page.locator('#tokens button.mh-token').nth(4).hover();
  await page.waitForFunction((c) => document.querySelector('#predictions figcaption').textContent === c, `After “${expected.tokens[4]}” (token 5)`);
  await page.mouse.move(0, 0);
  await page.waitForFunction((c) => document.querySelector('#predictions figcaption').textContent === c, `After “${expected.tokens[3]}” (token 4)`);
  await page.locator('#sentence').focus();
  await page.waitForFunction(() => document.querySelectorAll('#predictions figure').length === 1);
  await page.locator('#tokens button.mh-token').nth(1).click();
  await page.mouse.move(0, 0); // the chosen token's list stays when the pointer leaves
  await page.waitForFunction(() => document.querySelectorAll('#predictions figure').length === 2);
  await expect(caption()).resolves.toEqual([`After “${expected.tokens[1]}” (token 2)`,
    `After “${expected.tokens.at(-1)}” (token ${expected.tokens.length}, the last)`]);
  const top = await page.locator('#predictions figure').first().locator('.prediction-token').allTextContents();
  expect(top).toEqual(expected.predictions(1, 5).map((p) => `“${p.token}”`));

  // Delete it from the list: the list empties (the browser context holds only this model now).
  await page.locator('#model-cache summary').click();
  const remove = page.getByRole('button', { name: /^Delete the downloaded multihead-test\/gpt2-legacy/ });
  await remove.click();
  await page.waitForFunction(() => ![...document.querySelectorAll('#model-cache-list li')].some((li) => li.textContent.includes('gpt2-legacy')));
  console.log(`multihead-test/gpt2-legacy loaded again from the Cache API, with the fake Hub stopped, in ${ms} ms`);
  expect(real(problems)).toEqual([]);
  await page.close();
}, 120000);

test('the Hub\'s errors are plain messages on the page, and the model on screen stays', async () => {
  const hub = await fakeHub();
  const { page, problems } = await openPage(hub);
  await drawn(page);
  const cases = [
    ['multihead-test/nope', /'multihead-test\/nope'.*404/],
    ['org/gated', /^Could not load org\/gated: the model 'org\/gated' is gated or private \(HTTP 401.*multihead can only load public models/],
    ['multihead-test/bin-only', /no model\.safetensors.*pytorch_model\.bin/],
    ['multihead-test/xlnet', /model_type "xlnet" is not supported; supported model types are bart, bert, distilbert, gemma3_text, gpt2, gpt_neox, llama, marian, mistral, qwen2, qwen3, roberta, t5/],
  ];
  for (const [id, message] of cases) {
    await loadId(page, id);
    await expect(loadEnded(page)).resolves.toBe('error');
    const shown = await text(page, '#model-message');
    expect(shown).toMatch(message);
    expect(shown).toMatch(/ The built-in BERT is still loaded\.$/);
    expect(await page.locator('#model-message').getAttribute('role')).toBe('alert');
  }
  // Not a Hub id: said at the field, and nothing is fetched.
  const before = hub.requests.length;
  await loadId(page, '../../etc/passwd');
  await expect(text(page, '#model-id-error')).resolves.toMatch(/^"\.\.\/\.\.\/etc\/passwd" is not a Hub model id/);
  expect(await page.locator('#model-id').getAttribute('aria-invalid')).toBe('true');
  expect(hub.requests.length).toBe(before);
  await screenshot(page, 'hub-error');
  expect(real(problems).filter((p) => !/status of (401|404)/.test(p))).toEqual([]); // the browser logs failed fetches
  await page.close();
  await hub.close();
}, 120000);

test('elements naming the same Hub id share one download; hub-url must be http(s)', async () => {
  const hub = await fakeHub();
  const { page, problems } = await browser.open(`${repoServer.url}tests/e2e/pages/hub-element.html`);
  await page.waitForFunction(() => window.__done);
  await page.evaluate(() => caches.delete('multihead-models'));
  const ids = await page.evaluate(({ hubUrl, id }) => {
    const make = (attributes) => {
      const element = document.createElement('multihead-view');
      for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
      document.body.append(element);
      return element;
    };
    make({ id: 'a', model: id, 'hub-url': hubUrl, sentence: 'The old man saw the river.' });
    make({ id: 'b', model: id, 'hub-url': hubUrl, sentence: 'The children were walking.', view: 'steps', layer: '2' });
    make({ id: 'c', model: id, 'hub-url': 'javascript:alert(1)', sentence: 'x' });
    return ['a', 'b', 'c'];
  }, { hubUrl: hub.url, id: 'multihead-test/gpt2-legacy' });
  await page.waitForFunction((list) => list.every((id) => ['ready', 'error'].includes(document.getElementById(id).state)), ids, { timeout: 30000 });
  const states = await page.evaluate((list) => list.map((id) => [document.getElementById(id).state,
    document.getElementById(id).shadowRoot.querySelector('.status').textContent]), ids);
  expect(states).toEqual([['ready', ''], ['ready', ''], ['error', 'multihead: hub-url must be an http(s) URL, got "javascript:alert(1)"']]);
  const downloads = hub.requests.filter((r) => r.server === 'cdn' && r.path.endsWith('/model.safetensors') && r.range === null);
  expect(downloads).toHaveLength(1);
  expect(await page.evaluate(() => document.getElementById('a').tokens)).toEqual(gpt2.run('The old man saw the river.').tokens);
  // The four-steps view of layer 2 draws that layer's trace.
  expect(await page.evaluate(() => document.getElementById('b').shadowRoot.querySelectorAll('.mh-steps canvas').length)).toBeGreaterThan(0);
  expect(real(problems)).toEqual([]);
  await page.close();
  await hub.close();
}, 120000);

test('a model no element uses any more is freed: moving an element keeps it, removing the last frees it', async () => {
  const hub = await fakeHub();
  const { page, problems } = await browser.open(`${repoServer.url}tests/e2e/pages/hub-element.html`);
  await page.waitForFunction(() => window.__done);
  await page.evaluate(() => caches.delete('multihead-models'));
  const downloads = () => hub.requests.filter((r) => r.server === 'cdn' && r.path.endsWith('/model.safetensors') && r.range === null).length;
  const show = (id) => page.evaluate(({ hubUrl, id }) => new Promise((resolve) => {
    const element = document.createElement('multihead-view');
    element.id = 'shown';
    element.setAttribute('model', id);
    element.setAttribute('hub-url', hubUrl);
    element.setAttribute('sentence', 'The old man saw the river.');
    element.addEventListener('render', () => resolve(element.state), { once: true });
    document.body.append(element);
  }), { hubUrl: hub.url, id: 'multihead-test/gpt2-legacy' });
  expect(await show()).toBe('ready');
  expect(downloads()).toBe(1);
  // Without the cache, every load of the model is a download the fake Hub sees.
  await page.evaluate(() => caches.delete('multihead-models'));
  // Moved: disconnected and connected again at once, as a framework re-rendering a page does.
  await page.evaluate(() => { const e = document.getElementById('shown'); document.body.prepend(e); });
  await page.waitForTimeout(6000); // past the element's release delay of 5 s
  await page.evaluate(() => { document.getElementById('shown').setAttribute('sentence', 'The river.'); });
  await page.waitForFunction(() => document.getElementById('shown').tokens?.length === 3);
  expect(downloads()).toBe(1);
  // Removed: once no element uses the model it is disposed, so the next element loads it again.
  await page.evaluate(() => document.getElementById('shown').remove());
  await page.waitForTimeout(6000);
  hub.requests.length = 0;
  expect(await show()).toBe('ready');
  expect(downloads()).toBe(1);
  expect(real(problems)).toEqual([]);
  await page.close();
  await hub.close();
}, 120000);

