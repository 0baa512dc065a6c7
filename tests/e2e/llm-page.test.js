// Today's small LLMs on the page, offline: the page as `npm start` builds it, and the fake Hub
// serving the Llama-, Gemma-3- and Pythia-shaped fixtures under Hub ids. The grid groups the query
// heads that share a key/value head under a label, the head view names the heads it shares with,
// a sliding-window layer cross-hatches the keys beyond its window (checked in the canvas's pixels
// against a full-attention layer of the same model), the model view labels each layer "window 4" or
// "full", and a revision (Pythia's training checkpoints) is loaded from the URL and from the picker,
// and kept in the URL. The four steps show RoPE. <multihead-view model="HuggingFaceTB/SmolLM2-135M">
// draws the same. Screenshots go to screenshots/.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { launchBrowser, openWhen, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CHECKPOINTS = fileURLToPath(new URL('../fixtures/checkpoints/', import.meta.url));
const SENTENCE = 'The children were walking slowly to the old river.';

let browser, pageServer, repoServer, hub;
beforeAll(async () => {
  [browser, pageServer, repoServer, hub] = await Promise.all([launchBrowser(), servePage(), startServer({ root: REPO }), startFakeHub({
    repos: {
      'HuggingFaceTB/SmolLM2-135M': { folder: join(CHECKPOINTS, 'llama-smol') }, // 6 query heads on 2 key/value heads
      'unsloth/gemma-3-270m': { folder: join(CHECKPOINTS, 'gemma3') }, // layers 1 and 2 slide over 4 keys, layer 3 is full
      'EleutherAI/pythia-70m': { folder: join(CHECKPOINTS, 'pythia'), revisions: ['step1000', 'step143000'] },
    },
  })]);
}, 120000);
afterAll(async () => {
  await Promise.all([browser?.close(), pageServer?.close(), repoServer?.close(), hub?.close()]);
});

/** The page at `hash`, pointed at the fake Hub, once it has drawn the model the hash names. */
async function open(hash) {
  const opened = await openWhen(browser, `${pageServer.url}?hub=${encodeURIComponent(hub.url)}#sentence=${encodeURIComponent(SENTENCE)}&${hash}`,
    () => document.body.dataset.state === 'ready' && !document.querySelector('#model-status').textContent.startsWith('The built-in'));
  return opened;
}

const drawn = (page) => page.waitForFunction(() => document.body.dataset.state === 'ready' && !document.querySelector('[aria-busy="true"]'));

test('grouped-query attention: the grid groups the query heads of each key/value head, and the head view names the others', async () => {
  const { page, problems } = await open('model=HuggingFaceTB/SmolLM2-135M&view=grid&layer=2');
  await drawn(page);
  await expect(page.locator('#model-status').textContent()).resolves.toMatch(/Llama, 2 layers × 6 heads \(sharing 2 key\/value heads per layer\)/);
  const groups = await page.locator('#view .mh-kv-group').evaluateAll((list) => list.map((g) => ({
    label: g.querySelector('.mh-kv-label').textContent, cards: [...g.querySelectorAll('.mh-grid-card span')].map((s) => s.textContent),
  })));
  expect(groups).toEqual([
    { label: 'heads 1–3 share key/value head 1', cards: ['head 1', 'head 2', 'head 3'] },
    { label: 'heads 4–6 share key/value head 2', cards: ['head 4', 'head 5', 'head 6'] },
  ]);
  await screenshot(page, 'llm-grouped-grid');
  // The model view groups each layer's thumbnails too.
  await page.selectOption('#layer', { value: 'all' });
  await drawn(page);
  await expect(page.locator('#view .mh-kv-group').count()).resolves.toBe(4);
  await expect(page.locator('#view .mh-kv-label').first().textContent()).resolves.toBe('KV 1');
  // A head chosen in the grid: the head view says which heads read the same keys and values.
  await page.selectOption('#layer', { value: '1' });
  await drawn(page);
  await page.locator('#view .mh-grid-card').nth(4).click();
  await drawn(page);
  await expect(page.locator('#view .mh-head-shared').textContent()).resolves
    .toBe('Head 5 shares key/value head 2 with heads 4 and 6: the same keys and values, each head with queries of its own (grouped-query attention).');
  expect(problems).toEqual([]);
}, 90000);

test('four steps: each head\'s Q and K before and after RoPE, which dimensions turn and how fast, and K and V shared', async () => {
  const { page, problems } = await open('model=HuggingFaceTB/SmolLM2-135M&view=steps&layer=1');
  await drawn(page);
  const step2 = page.locator('#view .mh-step-2');
  await expect(step2.locator('.mh-step-text').textContent()).resolves.toContain('Then RoPE turns each query and key by its position: ' +
    'the first 8 of each head\'s 8 dimensions rotate in pairs (i, i + 4), pair i by position × θᵢ radians, from θ₀ = 1.00 ' +
    '(a full turn every 6.3 tokens) down to θ₃ = 0.00100 (one every 6,283)');
  const head5 = await step2.locator('.mh-head').nth(4).locator('figcaption').allTextContents();
  expect(head5.map((t) => t.replace(/\s*\d+ × \d+$/, ''))).toEqual(['Q₅ queries before RoPE', 'Q₅ queries, rotated',
    'K₂ keys before RoPE, shared by heads 4–6', 'K₂ keys, rotated, shared by heads 4–6', 'V₂ values, shared by heads 4–6']);
  await screenshot(page, 'llm-four-steps');
  // Pythia turns a quarter of each head; the rest pass through.
  await page.goto(`${pageServer.url}?hub=${encodeURIComponent(hub.url)}#sentence=${encodeURIComponent(SENTENCE)}&model=EleutherAI/pythia-70m&view=steps`);
  await page.waitForFunction(() => document.querySelector('#model-status').textContent.startsWith('EleutherAI'));
  await drawn(page);
  await expect(page.locator('#view .mh-step-2 .mh-step-text').textContent()).resolves
    .toMatch(/the first 8 of each head's 32 dimensions rotate in pairs \(i, i \+ 4\).*; the other 24 pass through unturned\./);
  expect(problems).toEqual([]);
}, 90000);

/** Whether the head view's cell (row, col) is one flat colour (a weight) or holds the hatch's lines too. */
function cellColours(page, row, col) {
  return page.evaluate(([r, c]) => {
    const canvas = document.querySelector('#view .mh-head-plot canvas');
    const cells = document.querySelectorAll('#view .mh-head-queries button').length;
    const w = canvas.width / cells, h = canvas.height / cells;
    const data = canvas.getContext('2d').getImageData(Math.round(c * w + 1), Math.round(r * h + 1), Math.floor(w - 2), Math.floor(h - 2)).data;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
    return colours.size;
  }, [row, col]);
}

test('sliding windows: a sliding layer cross-hatches the keys outside its window, with a key; the model view labels each layer', async () => {
  const { page, problems } = await open('model=unsloth/gemma-3-270m&view=head&layer=1&head=1');
  await drawn(page);
  const n = await page.locator('#view .mh-head-queries button').count();
  expect(n).toBeGreaterThan(6);
  await expect(page.locator('#model-status').textContent()).resolves.toContain('3 layers × 4 heads (sharing 1 key/value head per layer), 2 of them sliding over 4 keys and 1 seeing every key');
  await expect(page.locator('#view .mh-window-swatch + span').textContent()).resolves.toContain('Each token sees only the 4 latest tokens');
  // The last query's first key: outside layer 1's window of 4 (hatched), seen by full layer 3 (one colour).
  expect(await cellColours(page, n - 1, 0)).toBeGreaterThan(1);
  expect(await cellColours(page, n - 1, n - 1)).toBe(1); // within the window: a weight's one colour
  await screenshot(page, 'llm-window-head');
  await page.selectOption('#layer', { value: '2' });
  await page.waitForFunction(() => document.querySelector('#view .mh-head-title')?.textContent === 'Layer 3, head 1');
  await drawn(page);
  expect(await cellColours(page, n - 1, 0)).toBe(1);
  await expect(page.locator('#view .mh-window-swatch').isVisible()).resolves.toBe(false);
  await page.check('input[name=view][value=grid]');
  await page.selectOption('#layer', { value: 'all' });
  await drawn(page);
  await expect(page.locator('#view .mh-grid-layer h4').allTextContents()).resolves.toEqual(['Layer 1 · window 4', 'Layer 2 · window 4', 'Layer 3 · full']);
  await screenshot(page, 'llm-window-model-view');
  expect(problems).toEqual([]);
}, 90000);

test('a revision loads from the URL and from the picker, is named on the page and stays in the URL', async () => {
  hub.requests.length = 0;
  const { page, problems } = await open('model=EleutherAI/pythia-70m&revision=step1000');
  await expect(page.locator('#model-status').textContent()).resolves.toMatch(/^EleutherAI\/pythia-70m at revision step1000 \(from 127\.0\.0\.1:\d+, not the Hugging Face Hub\): GPT-NeoX/);
  await expect(page.inputValue('#model-revision')).resolves.toBe('step1000');
  const paths = () => hub.requests.filter((r) => r.server === 'hub' && r.path.includes('/resolve/')).map((r) => r.path);
  expect(paths().length).toBeGreaterThanOrEqual(3);
  for (const path of paths()) expect(path).toContain('/EleutherAI/pythia-70m/resolve/step1000/');
  hub.requests.length = 0;
  await page.fill('#model-revision', 'step143000');
  await page.press('#model-revision', 'Enter');
  await page.waitForFunction(() => document.body.dataset.model === 'ready' && document.querySelector('#model-status').textContent.includes('step143000'));
  for (const path of paths()) expect(path).toContain('/EleutherAI/pythia-70m/resolve/step143000/');
  expect(new URL(page.url()).hash).toContain('revision=step143000');
  // A revision the repository lacks: the Hub's answer, and the model on screen stays.
  await page.fill('#model-revision', 'step999');
  await page.press('#model-revision', 'Enter');
  await page.waitForFunction(() => document.body.dataset.model === 'error');
  await expect(page.locator('#model-message').textContent()).resolves
    .toContain("Could not load EleutherAI/pythia-70m at revision step999: the model 'EleutherAI/pythia-70m' has no revision 'step999'");
  expect(new URL(page.url()).hash).toContain('revision=step143000');
  // Not a revision at all: refused before anything is fetched.
  await page.fill('#model-revision', '../x');
  await page.press('#model-revision', 'Enter');
  await expect(page.locator('#model-id-error').textContent()).resolves.toContain('A revision is a branch, tag or commit');
  expect(problems.filter((p) => !/status of 404/.test(p))).toEqual([]);
}, 90000);

test('<multihead-view model="HuggingFaceTB/SmolLM2-135M"> groups its heads, names the shared ones and shows RoPE; a Gemma one hatches its window', async () => {
  const { page, problems } = await browser.open(`${repoServer.url}tests/e2e/pages/hub-element.html`);
  await page.waitForFunction(() => window.__done);
  const ids = await page.evaluate(({ hubUrl, sentence }) => {
    const make = (id, attributes) => {
      const element = document.createElement('multihead-view');
      for (const [name, value] of Object.entries({ id, 'hub-url': hubUrl, sentence, ...attributes })) element.setAttribute(name, value);
      document.body.append(element);
      return id;
    };
    return [
      make('grid', { model: 'HuggingFaceTB/SmolLM2-135M', view: 'grid', layer: '2' }),
      make('head', { model: 'HuggingFaceTB/SmolLM2-135M', view: 'head', layer: '1', head: '2' }),
      make('steps', { model: 'HuggingFaceTB/SmolLM2-135M', view: 'steps', layer: '1' }),
      make('window', { model: 'unsloth/gemma-3-270m', view: 'head', layer: '1' }),
    ];
  }, { hubUrl: hub.url, sentence: SENTENCE });
  await page.waitForFunction((list) => list.every((id) => document.getElementById(id).state === 'ready'), ids, { timeout: 30000 });
  const inside = (id, selector) => page.evaluate(([i, s]) => [...document.getElementById(i).shadowRoot.querySelectorAll(s)].map((e) => e.textContent), [id, selector]);
  await expect(inside('grid', '.mh-kv-label')).resolves.toEqual(['heads 1–3 share key/value head 1', 'heads 4–6 share key/value head 2']);
  await expect(inside('head', '.mh-head-shared')).resolves.toEqual([
    'Head 2 shares key/value head 1 with heads 1 and 3: the same keys and values, each head with queries of its own (grouped-query attention).']);
  const [steps] = await inside('steps', '.mh-step-2 .mh-step-text');
  expect(steps).toContain('the first 8 of each head\'s 8 dimensions rotate in pairs (i, i + 4)');
  const hidden = await page.evaluate(() => document.getElementById('window').shadowRoot.querySelector('.mh-window-key').hidden);
  expect(hidden).toBe(false);
  await screenshot(page, 'llm-elements');
  expect(problems).toEqual([]);
  await page.close();
}, 90000);
