// What each head does, on the page as `npm start` builds it, checked against the engine in this
// Node process:
// - the causal built-in model: the model view's badges and hover name the heads' live roles;
//   switching its best induction head off from its badge lowers the probability of the repeated
//   word to the engine's own ablated probability (zero and mean), moves only the last layer's
//   output by the engine's 1 − cosine, and goes into the URL, which restores it; over the probe set
//   the table names the previous-token and induction heads with tools/measure_induction.py's
//   scores (tests/fixtures/models/causal-heads.json) to 3 decimals;
// - a 12 × 12 BERT checkpoint from the fake Hub: 144 thumbnails and badges, a 144-row table that
//   sorts, ablation that changes the later layers' attention to the engine's, and the probe-set
//   measure with its progress bar and Cancel;
// - the model view's PNG and SVG and the role table's CSV and JSON, as the page downloads them;
// - the average and rollout views, against averageHeads and rollout.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeHub } from '../hub/fake-hub.js';
import { loadEngine } from '../../web/src/index.js';
import { headRoles } from '../../web/src/analysis/head-roles.js';
import { averageHeads, rollout } from '../../web/src/analysis/rollout.js';
import { EXAMPLES } from '../../web/demo/examples.js';
import { modelLayout } from '../../web/src/views/model-figure.js';
import { launchBrowser, openWhen, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const BIG = 'multihead-test/bert-12x12';
const INDUCTION = EXAMPLES.causal[0]; // "Yesterday Henry met William at the station. Today Henry met"

let browser, pageServer, hub, engine, causal, bert, measured;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, pageServer, hub, causal, bert] = await Promise.all([
    launchBrowser(), servePage(),
    startFakeHub({ repos: { [BIG]: { folder: join(REPO, 'tests/fixtures/checkpoints/bert-12x12') } } }),
    engine.loadModel({ builtin: 'causal' }), engine.loadModel(join(REPO, 'tests/fixtures/checkpoints/bert-12x12')),
  ]);
  measured = JSON.parse(await readFile(join(REPO, 'tests/fixtures/models/causal-heads.json'), 'utf8'));
}, 120000);

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), pageServer?.close(), hub?.close()]);
});

/** Opens the page at `hash` (with the fake Hub); waits until its model is ready and the sentence drawn. */
function openPage(hash) {
  return openWhen(browser, `${pageServer.url}?hub=${encodeURIComponent(hub.url)}${hash}`,
    () => document.body.dataset.model !== 'loading' && document.body.dataset.state === 'ready' &&
      document.querySelector('#status').textContent.includes('computed'), { width: 1200, height: 900 });
}

const hashOf = (params) => `#${new URLSearchParams(params)}`;
const ready = (page) => page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30000 });

/** The predictions panel's items: { token, probability, before } as the page holds them. */
function shownPredictions(page) {
  return page.locator('#predictions li').evaluateAll((items) => items.map((li) => ({
    token: li.querySelector('.prediction-token').textContent,
    probability: Number(li.dataset.probability),
    before: li.dataset.before === undefined ? null : Number(li.dataset.before),
    text: li.querySelector('.prediction-p').textContent,
  })));
}

/** The role table's rows as { layer, head, top, score, cells: { column: text } }, in the order shown. */
function roleTable(page) {
  return page.locator('#roles-table').evaluate((table) => {
    const names = [...table.querySelectorAll('thead th')].map((th) => th.textContent.replace(/ [▲▼]$/, ''));
    return [...table.querySelectorAll('tbody tr')].map((tr) => {
      const cells = Object.fromEntries([...tr.children].map((td, i) => [names[i], td.textContent]));
      return { layer: Number(cells.Layer) - 1, head: Number(cells.Head) - 1, top: cells['Top role'], score: cells.Score, cells };
    });
  });
}

/** Probabilities over the vocabulary from logits, in float64. */
function softmax(logits) {
  const max = Math.max(...logits);
  const e = Array.from(logits, (v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** 1 − cosine similarity of each layer's output, averaged over tokens, between two runs. */
function layerChanges(base, result) {
  const n = result.tokens.length, d = result.dModel;
  return Array.from({ length: result.layers }, (_, l) => {
    const [a, b] = [base, result].map((r) => (l + 1 < r.layers ? r.layerInput(l + 1) : r.hidden));
    let total = 0;
    for (let i = 0; i < n; i++) {
      let dot = 0, aa = 0, bb = 0;
      for (let k = i * d; k < (i + 1) * d; k++) {
        dot += a[k] * b[k];
        aa += a[k] ** 2;
        bb += b[k] ** 2;
      }
      total += 1 - dot / Math.sqrt(aa * bb);
    }
    return total / n;
  });
}

const stripValues = (page) => page.locator('.ablation-strip .ablation-value').allTextContents();

test('causal model: the badges name the live roles; switching off the induction head lowers the repeated word as the engine does, and the URL keeps it', async () => {
  const base = causal.run(INDUCTION);
  const n = base.tokens.length;
  const live = headRoles(base);
  const { page, problems } = await openPage(hashOf({ model: 'causal', view: 'grid', layer: 'all', sentence: INDUCTION }));
  const badges = page.locator('.mh-role-badge');
  expect(await badges.count()).toBe(causal.numLayers * causal.numHeads);

  // Hovering a thumbnail names the head and its top role, as headRoles computes it on this run.
  const best = measured.best_induction; // layer 1 head 0 (0-based): the page's layer 2 head 1
  const i = best.layer * causal.numHeads + best.head;
  expect(live[i].top.role).toBe('induction');
  await page.locator('.mh-grid-card').nth(i).hover();
  await expect(page.locator('.mh-grid-readout').textContent())
    .resolves.toMatch(new RegExp(`^layer 2 head 1, induction ${live[i].top.score.toFixed(3)}: `));
  await expect(badges.nth(i).textContent()).resolves.toBe(`induct ${live[i].top.score.toFixed(2).slice(1)}`);

  // The repeated word is the model's first guess after the last token.
  const william = base.predictions(n - 1, 1)[0];
  let shown = await shownPredictions(page);
  expect(shown[0]).toMatchObject({ token: `“${william.token}”`, before: null });
  expect(shown[0].probability).toBeCloseTo(william.probability, 5);

  // Switched off from its badge, by the keyboard.
  await badges.nth(i).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#predictions li')?.dataset.before !== undefined, null, { timeout: 20000 });
  await expect(badges.nth(i).getAttribute('aria-pressed')).resolves.toBe('true');
  await expect(badges.nth(i).textContent()).resolves.toBe('off');
  expect(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('ablate'))).toBe('2.1');
  const ablate = [{ layer: best.layer, head: best.head }];
  const zeroed = causal.run(INDUCTION, { ablate });
  const after = softmax(zeroed.logits(n - 1));
  shown = await shownPredictions(page);
  expect(shown[0].token).toBe(`“${william.token}”`);
  expect(shown[0].before).toBeCloseTo(william.probability, 5);
  expect(shown[0].probability).toBeCloseTo(after[william.id], 5);
  expect(shown[0].probability).toBeLessThan(william.probability / 5); // visibly lower: 13.9% → 0.4%
  expect(shown[0].text).toMatch(/^\d+\.\d% → (\d+\.\d%|< 0\.1%)$/);
  // Only the layer after the head moved, by the engine's amount.
  expect(await stripValues(page)).toEqual(layerChanges(base, zeroed).map((c) => c.toFixed(4)));
  expect(Number((await stripValues(page))[0])).toBe(0);
  console.log(`causal page: switching off layer 2 head 1 takes “${william.token}” from ` +
    `${(william.probability * 100).toFixed(1)}% to ${(after[william.id] * 100).toFixed(2)}%`);
  await screenshot(page, 'roles-causal-ablated');

  // Mean ablation: the same word, the engine's mean-ablated probability.
  await page.locator('label').filter({ hasText: 'its mean over the tokens' }).click();
  const meaned = softmax(causal.run(INDUCTION, { ablate, ablation: 'mean' }).logits(n - 1));
  await page.waitForFunction((p) => Math.abs(Number(document.querySelector('#predictions li').dataset.probability) - p) < 1e-5,
    meaned[william.id], { timeout: 20000 });
  expect(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('ablation'))).toBe('mean');

  // The link opens with the head still off.
  const link = await page.evaluate(() => location.hash);
  const again = await openPage(link);
  await again.page.waitForFunction(() => document.querySelector('#predictions li')?.dataset.before !== undefined, null, { timeout: 20000 });
  const reopened = await shownPredictions(again.page);
  expect(reopened[0].probability).toBeCloseTo(meaned[william.id], 5);
  await expect(again.page.locator('#ablation-list').textContent()).resolves.toBe('L2 H1 ✕');
  // Switching it back on from the panel restores the run with every head on.
  await again.page.locator('#ablation-list button').click();
  await again.page.waitForFunction(() => document.querySelector('#predictions li')?.dataset.before === undefined);
  expect((await shownPredictions(again.page))[0].probability).toBeCloseTo(william.probability, 5);
  expect(await again.page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('ablate'))).toBeNull();
  expect([...problems, ...again.problems]).toEqual([]);
  await again.page.close();
  await page.close();

  // The explanation's link does the same from the default model's page.
  const plain = await openPage('');
  await plain.page.locator('.explain a').filter({ hasText: 'Switch it off' }).click();
  await plain.page.waitForFunction(() => document.querySelector('#predictions li')?.dataset.before !== undefined, null, { timeout: 30000 })
    .catch(async (error) => {
      // Once seen in CI and not since: what the page said, to tell a stop or a failure from a hang.
      const said = await plain.page.evaluate(() => ({ state: document.body.dataset.state, model: document.body.dataset.model,
        status: document.querySelector('#status').textContent, hash: location.hash, predictions: document.querySelector('#predictions').textContent.slice(0, 300) }));
      throw new Error(`${error.message}; the page: ${JSON.stringify(said)}; problems: ${plain.problems.join('; ') || 'none'}`);
    });
  expect((await shownPredictions(plain.page))[0].probability).toBeCloseTo(after[william.id], 5);
  // A link to another model that names no heads switches them all on.
  await plain.page.locator('.explain a').filter({ hasText: 'layer 2 head 2' }).click();
  await plain.page.waitForFunction(() => document.querySelector('.examples').dataset.kind === 'masked' && document.body.dataset.model !== 'loading' &&
    document.body.dataset.state === 'ready', null, { timeout: 30000 });
  await expect(plain.page.locator('#ablation-list').textContent()).resolves.toBe('');
  expect(await plain.page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('ablate'))).toBeNull();
  // A hand-edited address naming a head the model does not have: that head is dropped, the rest kept.
  await plain.page.evaluate(() => { location.hash = '#ablate=9.9,1.1'; });
  await plain.page.waitForFunction(() => document.querySelector('#ablation-list').textContent === 'L1 H1 ✕' &&
    document.querySelectorAll('.ablation-strip li').length === 4, null, { timeout: 20000 });
  expect(await plain.page.evaluate(() => document.body.dataset.state)).toBe('ready');
  expect(await plain.page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('ablate'))).toBe('1.1');
  expect(plain.problems).toEqual([]);
  await plain.page.close();
}, 120000);

test('causal model over the probe set: the table names the previous-token and induction heads with measure_induction.py\'s scores', async () => {
  const { page, problems } = await openPage(hashOf({ model: 'causal', view: 'grid', layer: 'all', sentence: INDUCTION }));
  await page.locator('label').filter({ hasText: 'over the probe set' }).click();
  await expect(page.locator('#roles-bar').isVisible()).resolves.toBe(true);
  await page.waitForFunction(() => !document.querySelector('#roles-summary').textContent.startsWith('Measuring'), null, { timeout: 120000 });
  await expect(page.locator('#roles-summary').textContent()).resolves.toMatch(/^Measured over 185 probe sentences and 200 runs of 50 random tokens/);
  const rows = await roleTable(page);
  expect(rows).toHaveLength(8);
  for (const h of measured.heads) {
    const row = rows.find((r) => r.layer === h.layer && r.head === h.head);
    expect(row.cells.previous).toBe(h.prev.toFixed(3));
    expect(row.cells.induction).toBe(h.induction.toFixed(3));
    // Layer 1's heads are previous-token heads, and layer 2's heads 1 and 4 induction heads.
    const role = h.prev >= 0.5 ? 'previous' : h.induction >= 0.5 ? 'induction' : null;
    if (role) expect([row.top, row.score]).toEqual([role, h[role === 'previous' ? 'prev' : 'induction'].toFixed(3)]);
  }
  expect(rows.filter((r) => r.top === 'induction').map((r) => [r.layer, r.head])).toEqual([[1, 0], [1, 3]]);
  // The badges follow the probe set: layer 2 head 1 reads induction 0.93.
  await expect(page.locator('.mh-role-badge').nth(4).textContent()).resolves.toBe(`induct ${measured.best_induction.score.toFixed(2).slice(1)}`);
  // The relations table sets each relation's best head beside the fixed-offset baseline.
  const relations = await page.locator('#roles-relations tbody tr td:first-child').allTextContents();
  expect(relations).toEqual(['det', 'amod', 'nsubj', 'obj', 'pobj', 'poss', 'aux', 'coref']);

  // Sorting by induction, highest first, puts the two induction heads on top.
  await page.locator('#roles-table th button').filter({ hasText: /^induction/ }).click();
  const sorted = await roleTable(page);
  expect(sorted.slice(0, 2).map((r) => [r.layer, r.head])).toEqual([[1, 0], [1, 3]]);
  await expect(page.locator('#roles-table th[aria-sort="descending"]').textContent()).resolves.toBe('induction ▼');
  // "What does this mean?" gives a sentence per role.
  await page.locator('summary').filter({ hasText: 'What does this mean?' }).click();
  await expect(page.locator('#roles-meanings dt').allTextContents()).resolves.toEqual(expect.arrayContaining(['previous', 'induction', 'coref']));
  await screenshot(page, 'roles-causal-probes');
  expect(problems).toEqual([]);
  await page.close();
}, 180000);

test('a 12 × 12 checkpoint from the Hub: the model view, the role table and ablation work', async () => {
  const sentence = 'The old man saw the river near the house.';
  const base = bert.run(sentence);
  const n = base.tokens.length;
  const { page, problems } = await openPage(hashOf({ model: BIG, view: 'grid', layer: 'all', sentence }));
  expect(await page.locator('.mh-grid-card').count()).toBe(144);
  expect(await page.locator('.mh-role-badge').count()).toBe(144);
  let rows = await roleTable(page);
  expect(rows).toHaveLength(144);
  const live = headRoles(base);
  for (const k of [0, 37, 143]) {
    const row = rows.find((r) => r.layer === live[k].layer && r.head === live[k].head);
    expect(row.cells.previous).toBe(live[k].scores.previous.toFixed(3));
    expect(row.cells.broad).toBe(live[k].scores.broad.toFixed(3));
    expect(row.top).toBe(live[k].top?.role ?? '–');
  }

  // Switch off layer 1 head 1 from the table: later layers' attention is the engine's ablated run's.
  await page.locator('#roles-table button[aria-label="Layer 1 head 1: switch off"]').click();
  await page.waitForFunction(() => document.querySelectorAll('.ablation-strip li').length === 12, null, { timeout: 20000 });
  const ablated = bert.run(sentence, { ablate: [{ layer: 0, head: 0 }] });
  expect(await stripValues(page)).toEqual(layerChanges(base, ablated).map((c) => c.toFixed(4)));
  // A cell of layer 12 head 1 that moved, read by hovering its thumbnail.
  const before = base.attention(11, 0), after = ablated.attention(11, 0);
  let cell = 0;
  for (let k = 0; k < n * n; k++) if (Math.abs(after[k] - before[k]) > Math.abs(after[cell] - before[cell])) cell = k;
  expect(Math.abs(after[cell] - before[cell])).toBeGreaterThan(0.002);
  const [q, key] = [Math.floor(cell / n), cell % n];
  const thumb = page.locator('.mh-grid-card .mh-matrix').nth(11 * 12);
  const box = await thumb.boundingBox(); // its size; hover() scrolls it into view and points within it
  await thumb.hover({ position: { x: (key + 0.5) * (box.width / n), y: (q + 0.5) * (box.height / n) } });
  await expect(page.locator('.mh-grid-readout').textContent())
    .resolves.toMatch(new RegExp(`^layer 12 head 1.*: .* → .*: ${after[cell].toFixed(3)}$`));
  // The switched-off head is marked in the model view and the table, and in the URL.
  await expect(page.locator('.mh-grid-cell').first().getAttribute('class')).resolves.toContain('mh-off');
  rows = await roleTable(page);
  expect(rows[0].cells['Switched off']).toBe('off');
  expect(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('ablate'))).toBe('1.1');
  // Sorting: by broad, highest first.
  await page.locator('#roles-table th button').filter({ hasText: /^broad/ }).click();
  rows = await roleTable(page);
  const broad = rows.map((r) => Number(r.cells.broad));
  expect(broad).toEqual([...broad].sort((a, b) => b - a));

  // Over the probe set: a progress bar, Cancel, then a whole measure.
  await page.locator('label').filter({ hasText: 'over the probe set' }).click();
  await page.waitForFunction(() => document.querySelector('#roles-bar').value > 0);
  await page.locator('#roles-cancel').click();
  await page.waitForFunction(() => document.querySelector('#roles-done').textContent === 'Cancelled.');
  await expect(page.locator('#roles-start').isVisible()).resolves.toBe(true);
  await page.locator('#roles-start').click();
  // Progress redraws the bar only: a sort button focused while measuring keeps the focus.
  const sortButton = page.locator('#roles-table th button').first();
  await sortButton.focus();
  const at = await page.evaluate(() => document.querySelector('#roles-bar').value);
  await page.waitForFunction((v) => document.querySelector('#roles-bar').value > v + 8, at);
  expect(await page.evaluate(() => document.activeElement === document.querySelector('#roles-table th button'))).toBe(true);
  await page.waitForFunction(() => document.querySelector('#roles-summary').textContent.startsWith('Measured over'), null, { timeout: 120000 });
  rows = await roleTable(page);
  expect(rows).toHaveLength(144);
  expect(Object.keys(rows[0].cells)).toEqual(expect.arrayContaining(['det', 'coref', 'induction']));
  await screenshot(page, 'roles-bert-12x12');
  expect(problems).toEqual([]);
  await page.close();
}, 240000);

test('downloads: the model view as PNG and SVG with its badges and switched-off head, the role table as CSV and JSON', async () => {
  const run = causal.run(INDUCTION);
  const { page, problems } = await openPage(hashOf({ model: 'causal', view: 'grid', layer: 'all', sentence: INDUCTION, ablate: '2.1' }));
  await page.waitForFunction(() => document.querySelector('#predictions li')?.dataset.before !== undefined, null, { timeout: 20000 });
  const fetch = async (selector) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
    return { name: file.suggestedFilename(), bytes: await readFile(await file.path()) };
  };
  const png = await fetch('#export-png');
  expect(png.name).toBe('multihead-model.png');
  const { width, height } = modelLayout({ n: run.tokens.length, layers: 2, heads: 4 });
  expect([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)]).toEqual([width, height]);
  const svg = await fetch('#export-svg');
  expect(svg.name).toBe('multihead-model.svg');
  const parsed = await page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    return { error: doc.querySelector('parsererror') !== null, images: doc.querySelectorAll('image').length, texts: [...doc.querySelectorAll('text')].map((t) => t.textContent) };
  }, svg.bytes.toString('utf8'));
  expect(parsed.error).toBe(false);
  expect(parsed.images).toBe(8);
  // The ablated run's roles: layer 2 head 1 still attends as it did (its weights are kept), and is marked off.
  const ablatedRoles = headRoles(causal.run(INDUCTION, { ablate: [{ layer: 1, head: 0 }] }));
  expect(parsed.texts).toEqual(expect.arrayContaining(['L2 H1 (off)', `induction ${ablatedRoles[4].top.score.toFixed(2)}`]));
  expect(parsed.texts).toContain(`previous ${ablatedRoles[0].top.score.toFixed(2)}`);

  const csv = await fetch('#roles-csv');
  expect(csv.name).toBe('multihead-head-roles.csv');
  const lines = csv.bytes.toString('utf8').split('\r\n');
  expect(lines[0]).toBe('layer,head,top role,top score,previous,next,self,sink,last,punctuation,broad,duplicate,induction');
  expect(lines).toHaveLength(8 + 2);
  expect(lines[5].split(',').slice(0, 4)).toEqual(['2', '1', 'induction', ablatedRoles[4].top.score.toFixed(4)]);
  const json = JSON.parse((await fetch('#roles-json')).bytes.toString('utf8'));
  expect(json).toMatchObject({ format: 'multihead-head-roles', version: 1, model: 'the built-in GPT', measured: 'on one sentence', sentence: INDUCTION });
  expect(json.heads[4]).toEqual({ layer: 2, head: 1, top: ablatedRoles[4].top, scores: ablatedRoles[4].scores });
  expect(problems).toEqual([]);
  await page.close();
}, 60000);

test('the average and rollout views draw averageHeads and rollout of the run', async () => {
  const sentence = EXAMPLES.causal[1];
  const run = causal.run(sentence);
  const n = run.tokens.length;
  for (const [view, layer, expected] of [['average', 1, averageHeads(run, 1)], ['rollout', 1, rollout(run)]]) {
    const { page, problems } = await openPage(hashOf({ model: 'causal', view, layer: String(layer + 1), sentence }));
    await expect(page.locator('#head-control').isHidden()).resolves.toBe(true);
    const canvas = page.locator('.mh-head-plot canvas').first();
    const box = await canvas.boundingBox();
    let largest = 0;
    for (let k = 1; k < n * n; k++) if (expected[k] > expected[largest] && k % n !== Math.floor(k / n)) largest = k;
    const [q, key] = [Math.floor(largest / n), largest % n];
    await page.mouse.move(box.x + (key + 0.5) * (box.width / n), box.y + (q + 0.5) * (box.height / n));
    await expect(page.locator('.mh-tooltip').textContent()).resolves.toBe(`${run.tokens[q]} → ${run.tokens[key]}: ${expected[largest].toFixed(3)}`);
    await screenshot(page, `roles-${view}`);
    expect(problems).toEqual([]);
    await page.close();
  }
}, 60000);
