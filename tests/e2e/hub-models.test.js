// Every architecture loaded from the Hub in Chromium, in both WASM builds: each checkpoint of
// tests/fixtures/checkpoints, with its tokenizer in each of its two layouts, served by the fake Hub
// on another origin (its 302 to a CDN origin,
// CORS, Range, and the browser's Cache API on the way), loaded by engine.loadModel(id, { hubUrl })
// in a page, against the float64 PyTorch references: the ids exactly, attention, each layer's
// input and the final hidden states to 1e-4, the logits to 1e-3 of their largest magnitude. Each
// causal checkpoint writes greedily the 32 tokens its float64 reference writes (greedy.json),
// each step's attention rows those of a whole run over the written text to 1e-5.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { checkpointRepo, readModelCase, TOKENIZER_LAYOUTS } from '../js/helpers.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DIR = `${REPO}tests/fixtures/checkpoints/`;
const CHECKPOINTS = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
// One plain case per checkpoint: the ablated cases need run options, which checkpoints.test.js covers.
const plain = (checkpoint) => readdirSync(`${DIR}${checkpoint}/cases`).sort()
  .find((name) => !existsSync(`${DIR}${checkpoint}/cases/${name}/ablation.u8`));
const CASES = CHECKPOINTS.flatMap((checkpoint) => TOKENIZER_LAYOUTS.map(([layout]) => [checkpoint, plain(checkpoint), layout]));
const repoId = (checkpoint, layout) => `multihead-test/${checkpoint}-${layout}-tokenizer`;
// The text greedy.json's tokens were written after (tools/make_checkpoints.py).
const GREEDY_TEXT = 'The children were walking slowly to the old river.';
const CAUSAL = CHECKPOINTS.filter((checkpoint) => existsSync(`${DIR}${checkpoint}/greedy.json`));

let browser, server, hub, page, problems;
beforeAll(async () => {
  [browser, server, hub] = await Promise.all([
    launchBrowser(), startServer({ root: REPO }),
    startFakeHub({ repos: Object.fromEntries(CASES.map(([c, , layout]) => [repoId(c, layout), checkpointRepo(`${DIR}${c}/`, layout)])) }),
  ]);
  ({ page, problems } = await browser.open(`${server.url}tests/e2e/pages/hub-models.html`));
  await page.waitForFunction(() => window.__done);
}, 60000);
afterAll(async () => {
  await page?.close();
  await Promise.all([browser?.close(), server?.close(), hub?.close()]);
});

const largestDiff = (got, want) => {
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  return got.length === want.length ? worst : Infinity;
};

describe.each(['relaxed-simd', 'simd', 'scalar'])('the %s build in Chromium', (build) => {
  test.each(CASES)('%s from the fake Hub matches PyTorch on its %s case (tokenizer layout: %s)', async (checkpoint, name, layout) => {
    const f = readModelCase(`${DIR}${checkpoint}/cases/${name}`);
    const r = await page.evaluate((args) => window.runHubModel(args), { id: repoId(checkpoint, layout), hubUrl: hub.url, text: f.text, build });
    expect(r.build).toBe(build);
    expect(r.ids).toEqual(Array.from(f.ids));
    const { n, d, heads } = f;
    let attention = 0, inputs = 0;
    r.attention.forEach((layer, l) => {
      layer.forEach((weights, h) => {
        const start = (l * heads + h) * n * n;
        attention = Math.max(attention, largestDiff(weights, f.attention.subarray(start, start + n * n)));
      });
      inputs = Math.max(inputs, largestDiff(r.inputs[l], f.inputs.subarray(l * n * d, (l + 1) * n * d)));
    });
    const hidden = largestDiff(r.hidden, f.hidden);
    expect(r.attention).toHaveLength(f.layers);
    expect(attention).toBeLessThan(1e-4);
    expect(inputs).toBeLessThan(1e-4);
    expect(hidden).toBeLessThan(1e-4);
    expect(r.logits === null).toBe(!f.logits);
    if (f.logits) {
      const largest = f.logits.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      const logits = Math.max(...r.logits.map((row, p) => largestDiff(row, f.logits.subarray(p * f.vocab, (p + 1) * f.vocab))));
      expect(logits).toBeLessThan(1e-3 * largest);
    }
    process.stdout.write(`[hub in Chromium] ${build} ${checkpoint}/${name} (${r.architecture}, ${layout} tokenizer): max |diff| attention ` +
      `${attention.toExponential(2)}, inputs ${inputs.toExponential(2)}, hidden ${hidden.toExponential(2)}\n`);
    expect(problems).toEqual([]);
  }, 60000);

  test.each(CAUSAL)('%s writes greedily what its float64 reference writes, each step\'s rows a whole run\'s', async (checkpoint) => {
    const expected = JSON.parse(readFileSync(`${DIR}${checkpoint}/greedy.json`, 'utf8'));
    const id = repoId(checkpoint, TOKENIZER_LAYOUTS[0][0]);
    const r = await page.evaluate((args) => window.writeHubModel(args), { id, hubUrl: hub.url, text: GREEDY_TEXT, build, maxNewTokens: 32 });
    expect(r.build).toBe(build);
    expect(r.prompt).toEqual(expected.prompt);
    expect(r.ids).toEqual(expected.output);
    expect(r.rows).toBeLessThan(1e-5);
    expect(problems).toEqual([]);
  }, 60000);
});
