// The page's Why? view, offline, as `npm start` builds it: on the causal built-in model's
// Henry/William example each head's part of the logit is the engine's, the lens ends in the
// model's prediction, the suggested corruption swaps " William" for another name, and the head
// sweep (in the page's worker, with its progress bar) puts the two induction heads first; a head
// clicked opens its attention with the explained row marked; the choices live in the URL; the
// figure and its numbers download. Then the masked built-in model at a [MASK], and a Hub GPT-2
// from the fake Hub. Every number is compared with the engine in this Node process.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { TINY, safetensorsBytes, tinyConfig, tinyTensors, tinyTokenizer } from '../js/tiny-model.js';
import { launchBrowser, openWhen, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CHECKPOINTS = join(REPO, 'tests/fixtures/checkpoints');
const CLEAN = 'Yesterday Henry met William at the station. Today Henry met';
const CORRUPTED = 'Yesterday Henry met James at the station. Today Henry met';
// The page may run another SIMD build than this process: the same sums in another order.
const CLOSE = 1e-4;

let browser, pageServer, engine, gpt, bert;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, pageServer, gpt, bert] = await Promise.all([launchBrowser(), servePage(), engine.loadModel({ builtin: 'causal' }), engine.loadModel()]);
}, 120000);

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), pageServer?.close()]);
});

/** Opens the page's Why? view at `hash` (after the #), waits for its heads map. */
function openWhy(hash, origin = pageServer.url) {
  return openWhen(browser, `${origin}#view=why&${hash}`, () => document.body.dataset.model !== 'loading' && document.body.dataset.state === 'ready' &&
    document.querySelector('.mh-why-heads .mh-why-map button[data-layer][data-head]') !== null);
}

/** The buttons of a map ('heads' or 'patch') as numbers: [layer][head]. */
function mapValues(page, block) {
  return page.locator(`.mh-why-${block} .mh-why-map button[data-layer][data-head]`).evaluateAll((cells) => {
    const rows = [];
    for (const c of cells) (rows[Number(c.dataset.layer)] ??= [])[Number(c.dataset.head)] = Number(c.dataset.value);
    return rows;
  });
}

function expectClose(shown, expected) {
  expect(shown.length).toBe(expected.length);
  shown.forEach((row, l) => row.forEach((v, h) => expect(Math.abs(v - expected[l][h])).toBeLessThan(CLOSE)));
}

const hashOf = (fields) => new URLSearchParams(fields).toString();

test('the causal model\'s Henry/William: the parts, the lens, the suggestion, the sweep, a head clicked, the URL', async () => {
  const { page, problems } = await openWhy(hashOf({ model: 'causal', sentence: CLEAN }));
  const run = gpt.run(CLEAN);
  const last = run.ids.length - 1;
  const parts = run.contributions(last);
  expectClose(await mapValues(page, 'heads'), parts.heads.map((h) => Array.from(h)));
  const top = run.predictions(last, 1)[0].token;
  await expect(page.locator('.mh-why-heads .mh-why-sentence').textContent()).resolves.toContain(top);
  // The lens's last row, at the explained position, is the model's own prediction.
  const current = page.locator('.mh-why-lens tbody tr').last().locator('td.mh-why-current');
  await expect(current.textContent()).resolves.toContain(top.trim());
  // The suggested corruption swaps the predicted name where the prompt holds it.
  await expect(page.locator('#why-corrupted').inputValue()).resolves.toBe(CORRUPTED);
  await expect(page.locator('.mh-why-qk canvas.mh-why-canvas').count()).resolves.toBe(1);

  // Against " james": the map becomes the logit difference, and the sweep runs in the worker.
  await page.fill('#why-token', ' william');
  await page.press('#why-token', 'Tab');
  await page.fill('#why-against', ' james');
  await page.press('#why-against', 'Enter');
  await page.waitForFunction(() => document.querySelector('.mh-why-heads .mh-why-sentence')?.textContent.includes('james'));
  const difference = run.contributions(last, { token: ' william', against: ' james' });
  expectClose(await mapValues(page, 'heads'), difference.heads.map((h) => Array.from(h)));
  await page.click('#why-patch');
  await page.waitForFunction(() => document.querySelector('.mh-why-patch .mh-why-map button[data-head]') !== null && !document.querySelector('#why-stop:not([hidden])'));
  const patched = await gpt.patch({ clean: CLEAN, corrupted: CORRUPTED, token: ' william', against: ' james' });
  expectClose(await mapValues(page, 'patch'), patched.values.map((v) => Array.from(v)));
  // The induction heads, layer 2 heads 1 and 4 as the page counts, lead the strongest heads.
  const strongest = await page.locator('.mh-why-strongest button[data-layer][data-head]').evaluateAll((b) => b.map((e) => `${e.dataset.layer}.${e.dataset.head}`));
  expect(strongest.slice(0, 2).sort()).toEqual(['1.0', '1.3']);
  await expect(page.locator('#why-done').textContent()).resolves.toMatch(/^8 runs in /);
  const params = new URLSearchParams(await page.evaluate(() => location.hash.slice(1)));
  expect([params.get('view'), params.get('token'), params.get('against')]).toEqual(['why', ' william', ' james']);
  await screenshot(page, 'why-causal');

  // A head clicked opens its attention, the explained position's row pinned.
  await page.click('.mh-why-heads .mh-why-map button[data-layer="1"][data-head="3"]');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('view') === 'head');
  const after = new URLSearchParams(await page.evaluate(() => location.hash.slice(1)));
  expect([after.get('layer'), after.get('head')]).toEqual(['2', '4']);
  const pinned = await page.locator('.mh-head button[aria-pressed="true"]').evaluateAll((b) => b.map((e) => e.textContent));
  expect(pinned).toEqual([run.tokens[last]]);
  expect(problems).toEqual([]);
  await page.close();
}, 60000);

test('a link opens the same explanation; a token that is two is an error by its field, and the rest still draws', async () => {
  const position = 3; // " met", counted from 0
  const hash = hashOf({ model: 'causal', sentence: CLEAN, pos: String(position + 1), against: ' Henry William', layer: '2', head: '1' });
  const { page, problems } = await openWhen(browser, `${pageServer.url}#view=why&${hash}`,
    () => document.body.dataset.model !== 'loading' && document.body.dataset.state === 'ready' && !document.querySelector('#why-error').hidden);
  await expect(page.locator('#why-error').textContent()).resolves.toMatch(/^against must be one token of the model's vocabulary/);
  await expect(page.locator('.mh-why-message').textContent()).resolves.toMatch(/^against must be one token/);
  await expect(page.locator('#why-position').inputValue()).resolves.toBe(String(position));
  await page.fill('#why-against', '');
  await page.press('#why-against', 'Enter');
  await page.waitForFunction(() => document.querySelector('.mh-why-heads .mh-why-map button[data-head]') !== null && document.querySelector('#why-error').hidden);
  const parts = gpt.run(CLEAN).contributions(position);
  expectClose(await mapValues(page, 'heads'), parts.heads.map((h) => Array.from(h)));
  expect(problems).toEqual([]);
  await page.close();
}, 60000);

test('the figure and its numbers download as PNG, SVG and CSV', async () => {
  const { page, problems } = await openWhy(hashOf({ model: 'causal', sentence: CLEAN }));
  await expect(page.locator('#export-csv').isVisible()).resolves.toBe(true);
  const files = {};
  for (const kind of ['png', 'svg', 'csv']) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#export-${kind}`)]);
    expect(download.suggestedFilename()).toBe(`multihead-why.${kind}`);
    files[kind] = await readFile(await download.path());
  }
  expect(files.png.subarray(1, 4).toString()).toBe('PNG');
  const svg = files.svg.toString();
  expect(svg.match(/<rect[^>]*class="why-heads"/g)).toHaveLength(gpt.numLayers * gpt.numHeads);
  const run = gpt.run(CLEAN);
  const parts = run.contributions(run.ids.length - 1);
  const csv = files.csv.toString();
  // Every head's part is in the CSV as the number itself.
  for (const row of parts.heads) for (const v of row) expect(csv).toContain(String(v).slice(0, 8));
  expect(problems).toEqual([]);
  await page.close();
}, 60000);

test('the masked built-in model explains its [MASK]; the toy layer says it predicts nothing', async () => {
  const sentence = 'The cat sat on the [MASK] because it was tired.';
  const { page, problems } = await openWhy(hashOf({ sentence }));
  const run = bert.run(sentence);
  const mask = run.tokens.indexOf('[MASK]');
  expectClose(await mapValues(page, 'heads'), run.contributions(mask).heads.map((h) => Array.from(h)));
  await expect(page.locator('#why-position option').first().textContent()).resolves.toBe(`default (${mask + 1}: [MASK])`);
  // A masked model predicts the token at its position, not after it.
  await expect(page.locator('.mh-why-heads .mh-why-sentence').textContent()).resolves.toContain(`at position ${mask + 1} (“[MASK]”)`);
  await screenshot(page, 'why-masked');
  await page.check('input[name="mode"][value="toy"]');
  await page.waitForFunction(() => document.querySelector('.mh-why-message')?.textContent.includes('toy layer'));
  expect(problems).toEqual([]);
  await page.close();
}, 60000);

test('a Hub GPT-2 from the fake Hub: its parts and its sweep are the engine\'s', async () => {
  const hub = await startFakeHub({ repos: { 'multihead-test/gpt2-legacy': { folder: join(CHECKPOINTS, 'gpt2-legacy') } } });
  const model = await engine.loadModel(join(CHECKPOINTS, 'gpt2-legacy'));
  try {
    const sentence = 'Yesterday Henry met William. Today Henry met';
    const { page, problems } = await openWhy(hashOf({ model: 'multihead-test/gpt2-legacy', sentence }), `${pageServer.url}?hub=${encodeURIComponent(hub.url)}`);
    expect(await page.evaluate(() => document.body.dataset.model)).toBe('ready');
    const run = model.run(sentence);
    expectClose(await mapValues(page, 'heads'), run.contributions(run.ids.length - 1).heads.map((h) => Array.from(h)));
    const corrupted = await page.locator('#why-corrupted').inputValue();
    expect(corrupted).not.toBe(sentence);
    await page.click('#why-patch');
    await page.waitForFunction(() => document.querySelector('.mh-why-patch .mh-why-map button[data-head]') !== null);
    const patched = await model.patch({ clean: sentence, corrupted });
    expectClose(await mapValues(page, 'patch'), patched.values.map((v) => Array.from(v)));
    await screenshot(page, 'why-hub-gpt2');
    expect(problems).toEqual([]);
    await page.close();
  } finally {
    model.dispose();
    await hub.close();
  }
}, 90000);

test('Stop ends a long sweep between two runs, and the next sweep runs whole', async () => {
  // A BERT with an MLM head, big enough that its 36-run sweep over 450 tokens takes a good part of a second.
  const d = 192, layers = 6;
  const tensors = tinyTensors({ d, ff: 2 * d, layers, positions: 512 });
  const like = (name) => ({ ...tensors[name] }); // the head's tensors borrow the body's random values
  Object.assign(tensors, {
    'cls.predictions.transform.dense.weight': like('encoder.layer.0.attention.self.query.weight'),
    'cls.predictions.transform.dense.bias': like('encoder.layer.0.attention.self.query.bias'),
    'cls.predictions.transform.LayerNorm.weight': like('embeddings.LayerNorm.weight'),
    'cls.predictions.transform.LayerNorm.bias': like('embeddings.LayerNorm.bias'),
    'cls.predictions.bias': { shape: [TINY.vocab.length], values: tensors['embeddings.LayerNorm.bias'].values.slice(0, TINY.vocab.length) },
  });
  const config = tinyConfig({ architectures: ['BertForMaskedLM'], hidden_size: d, intermediate_size: 2 * d, num_hidden_layers: layers, num_attention_heads: 6, max_position_embeddings: 512 });
  const hub = await startFakeHub({ repos: { 'multihead-test/slow-bert': { files: {
    'config.json': JSON.stringify(config), 'tokenizer.json': JSON.stringify(tinyTokenizer()), 'model.safetensors': Buffer.from(safetensorsBytes(tensors)),
  } } } });
  try {
    const sentence = `${'the cat sat on the mat . '.repeat(64)}the cat sat on the [MASK] .`;
    const { page, problems } = await openWhy(hashOf({ model: 'multihead-test/slow-bert', sentence }), `${pageServer.url}?hub=${encodeURIComponent(hub.url)}`);
    expect(await page.evaluate(() => document.body.dataset.model)).toBe('ready');
    await page.fill('#why-corrupted', sentence.replace('cat sat on the [MASK]', 'mat sat on the [MASK]'));
    await page.click('#why-patch');
    await page.locator('#why-stop').click();
    await page.waitForFunction(() => document.querySelector('#why-done').textContent === 'Stopped.' && !document.querySelector('#why-patch').hidden);
    await expect(page.locator('.mh-why-patch .mh-why-map').count()).resolves.toBe(0);
    await page.click('#why-patch');
    await page.waitForFunction(() => /^36 runs in /.test(document.querySelector('#why-done').textContent), null, { timeout: 30000 });
    expect(await page.locator('.mh-why-patch .mh-why-map button[data-layer][data-head]').count()).toBe(36);
    expect(problems).toEqual([]);
    await page.close();
  } finally {
    await hub.close();
  }
}, 90000);
