// An encoder–decoder on the page, as `npm start` builds it. The built-in reverser, offline: Write
// switches to the cross-attention and writes what the engine in this Node process writes, each
// head a rectangle of target rows over source columns that grows a row per word; the alignment
// view links each written word to the source word it read, and the Attention of choice shows the
// encoder's and the decoder's heads. From the fake Hub under its real id, a Marian checkpoint
// translates (Translate, its cross head switched off by a link writing what the engine writes with
// it off), draws its cross-attention in the lines view and the model view, and its cross heads
// get their roles; a T5 checkpoint offers its task prefixes. Screenshots go to screenshots/.
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { launchBrowser, openWhen, screenshot, servedBy } from './browser.js';
import { servePage } from './page-server.js';

const SEQ2SEQ = fileURLToPath(new URL('../fixtures/seq2seq/', import.meta.url));
const WORDS = 'red cat blue dog green frog';

let browser, pageServer, hub, engine, reverser, marian;
beforeAll(async () => {
  engine = await loadEngine();
  [browser, pageServer, hub, reverser, marian] = await Promise.all([launchBrowser(), servePage(), startFakeHub({
    repos: {
      'Helsinki-NLP/opus-mt-en-de': { folder: `${SEQ2SEQ}marian` },
      'google-t5/t5-small': { folder: `${SEQ2SEQ}t5-small` },
    },
  }), engine.loadModel({ builtin: 'reverse' }), engine.loadModel(`${SEQ2SEQ}marian`)]);
}, 120000);
afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), pageServer?.close(), hub?.close()]);
});

/** The page at `hash` (pointed at the fake Hub), once the model it names has drawn its sentence. */
function open(hash, options) {
  return openWhen(browser, `${pageServer.url}?hub=${encodeURIComponent(hub.url)}${hash}`,
    () => document.body.dataset.state === 'ready' && document.body.dataset.model !== 'loading', options);
}

/** Clicks Write (or Translate) and waits until the writing has ended and the page has asked for all it shows. */
async function write(page) {
  await page.click('#write-button');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && document.querySelector('#write-steps li') &&
    !document.querySelector('#view [aria-busy="true"]'), null, { timeout: 60000 });
}

/** What the engine writes from `source`: the steps' ids and tokens. */
async function written(model, source, options = {}) {
  const steps = [];
  for await (const step of model.generate(source, options)) steps.push(step);
  return { ids: steps.map((s) => s.id), tokens: steps.map((s) => s.token) };
}

const param = (page, name) => new URLSearchParams(new URL(page.url()).hash.slice(1)).get(name);
const matrixShape = (page) => page.locator('#view .mh-matrix').first().getAttribute('aria-label'); // the head view's
const stack = (page) => page.locator('input[name="stack"]:checked').getAttribute('value');

test('the built-in reverser writes the words backwards, and its cross-attention shows where each one came from', async () => {
  const { page, problems, responses } = await open(`#model=reverse&view=head&layer=2&head=1&sentence=${encodeURIComponent(WORDS)}`, { width: 1100, height: 1000 });
  await expect(page.locator('#stack-control').isVisible()).resolves.toBe(true);
  await expect(stack(page)).resolves.toBe('encoder');
  await expect(page.locator('#write-button').textContent()).resolves.toBe('Write'); // no translation task
  await expect(page.locator('label[for="sentence"]').textContent()).resolves.toContain('Source sentence');
  const source = ['<s>', ...WORDS.split(' '), '</s>'];
  await expect(page.locator('#view .mh-head-keys .mh-token').allTextContents()).resolves.toEqual(source);

  await write(page);
  const want = await written(reverser, WORDS);
  expect(want.tokens).toEqual([...WORDS.split(' ').reverse(), '</s>']);
  // Write switched to the cross-attention it writes with: target rows (the two start tokens, then
  // what was written) over the source's columns.
  await expect(stack(page)).resolves.toBe('cross');
  expect(param(page, 'stack')).toBe('cross');
  expect(param(page, 'out')).toBe(want.ids.join(','));
  await expect(page.locator('#write-steps .write-step-token').allTextContents()).resolves.toEqual(want.tokens);
  const rows = ['</s>', '<s>', ...want.tokens];
  await expect(page.locator('#view .mh-head-queries .mh-token').allTextContents()).resolves.toEqual(rows);
  await expect(page.locator('#view .mh-head-keys .mh-token').allTextContents()).resolves.toEqual(source);
  await expect(matrixShape(page)).resolves.toContain(`${rows.length} × ${source.length} weights`);

  // A written word chosen in the strip pins, in every head, the row that chose it.
  await page.locator('#write-steps button').nth(1).click();
  await page.waitForFunction(() => document.querySelectorAll('#view .mh-head-queries button')[2]?.getAttribute('aria-pressed') === 'true');

  // The alignment view: each written word's strongest link, layer 2's heads averaged, is its own word in the source.
  await page.click('input[name="view"][value="alignment"]');
  await page.waitForSelector('.mh-alignment-target button');
  await expect(page.locator('.mh-alignment-source .mh-alignment-word').allTextContents()).resolves.toEqual(source);
  const targets = page.locator('.mh-alignment-target button');
  await expect(targets.allTextContents()).resolves.toEqual(['<s>', ...want.tokens]);
  await targets.nth(1).focus();
  for (const word of want.tokens.slice(0, -1)) {
    await expect(page.locator('.mh-alignment-readout').textContent()).resolves.toMatch(new RegExp(`^${word} reads ${word} `));
    await page.keyboard.press('ArrowRight');
  }
  await targets.nth(3).hover();
  await screenshot(page, 'translate-alignment');
  expect(await page.locator('.mh-alignment-links line').count()).toBeGreaterThan(0);

  // The four steps of a cross-attention: queries from the target's rows, keys and values from the source.
  await page.click('input[name="view"][value="steps"]');
  await page.waitForSelector('#view .mh-steps');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && !document.querySelector('#view [aria-busy="true"]'));
  const stepTexts = await page.locator('#view').textContent();
  expect(stepTexts).toContain('the decoder\'s state after its self-attention in layer 2');
  for (const word of source) expect(stepTexts).toContain(word);

  // The decoder's own heads: causal, the target over itself; the encoder's: the source over itself.
  await page.click('input[name="view"][value="head"]');
  await page.click('input[name="stack"][value="decoder"]');
  await page.waitForFunction((n) => document.querySelector('#view .mh-matrix')?.getAttribute('aria-label').includes(`${n} × ${n}`), rows.length);
  await expect(page.locator('#view .mh-causal-key').isVisible()).resolves.toBe(true);
  await page.click('input[name="stack"][value="encoder"]');
  await page.waitForFunction((n) => document.querySelector('#view .mh-matrix')?.getAttribute('aria-label').includes(`${n} × ${n}`), source.length);
  // Offline: every file came from the page's own server.
  expect(responses.filter((r) => !servedBy(r.url, pageServer.url))).toEqual([]);
  expect(problems).toEqual([]);
}, 120000);

test('a Marian checkpoint from the Hub translates; a cross head switched off by a link changes it as the engine says', async () => {
  const sentence = 'The children were walking slowly to the old river.';
  const { page, problems } = await open(`#model=Helsinki-NLP/opus-mt-en-de&view=head&layer=1&head=1&new=12&sentence=${encodeURIComponent(sentence)}`);
  await expect(page.locator('#write-button').textContent()).resolves.toBe('Translate');
  await expect(page.locator('#model-status').textContent()).resolves.toContain('encoder–decoder');
  await write(page);
  const want = await written(marian, sentence, { maxNewTokens: 12 });
  expect(param(page, 'out')).toBe(want.ids.join(','));
  const nSource = marian.tokenize(sentence).ids.length;
  // A head is a rectangle; the model view has a row per decoder layer; the lines view two columns of different words.
  await expect(matrixShape(page)).resolves.toContain(`${1 + want.ids.length} × ${nSource} weights`);
  await page.click('input[name="view"][value="grid"]');
  await page.selectOption('#layer', 'all');
  await page.waitForFunction((layers) => document.querySelectorAll('#view .mh-grid-layer').length === layers, marian.numDecoderLayers);
  await expect(page.locator('#roles-summary').textContent()).resolves.toMatch(/Cross-attention: a head that read only the diagonal source word .* would score [\d.]+ as the align baseline/);
  await expect(page.locator('#roles-table th').allTextContents()).resolves.toEqual(expect.arrayContaining([expect.stringMatching(/^align/), expect.stringMatching(/^sink/)]));
  await page.click('input[name="view"][value="lines"]');
  await page.waitForSelector('.mh-lines-keys .mh-lines-key');
  await expect(page.locator('.mh-lines-keys .mh-lines-key').count()).resolves.toBe(nSource);
  await expect(page.locator('.mh-lines-queries .mh-lines-query').count()).resolves.toBe(1 + want.ids.length);
  await screenshot(page, 'translate-marian-lines');
  expect(problems).toEqual([]);

  const off = await written(marian, sentence, { maxNewTokens: 12, ablate: [{ layer: 0, head: 1, stack: 'cross' }] });
  expect(off.ids).not.toEqual(want.ids);
  const { page: ablated, problems: problems2 } = await open(`#model=Helsinki-NLP/opus-mt-en-de&view=grid&layer=1&new=12&ablate=c1.2&sentence=${encodeURIComponent(sentence)}`);
  await expect(ablated.locator('#ablation-list').textContent()).resolves.toContain('cross L1 H2');
  await write(ablated);
  expect(param(ablated, 'out')).toBe(off.ids.join(','));
  expect(problems2).toEqual([]);
}, 120000);

test('a T5 checkpoint offers its task prefixes, which go in front of the source', async () => {
  const { page, problems } = await open('#model=google-t5/t5-small&sentence=the+house+is+small');
  await expect(page.locator('#task-control').isVisible()).resolves.toBe(true);
  await expect(page.locator('#write-button').textContent()).resolves.toBe('Translate');
  await page.selectOption('#task', 'translate English to German: ');
  await expect(page.locator('#sentence').inputValue()).resolves.toBe('translate English to German: the house is small');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('sentence')?.startsWith('translate English'));
  await page.selectOption('#task', '');
  await expect(page.locator('#sentence').inputValue()).resolves.toBe('the house is small');
  expect(problems).toEqual([]);
}, 60000);
