// The page's Hub presets as a learner picks them, in Chromium: bert-base-uncased,
// distilbert-base-uncased, roberta-base, gpt2 and distilgpt2, each served by the fake Hub under its
// real id with its tokenizer.json as the Hub has it, in the older layout with no model "type"
// (tests/hub/hub-tokenizers.js), over small random weights of its architecture
// (tests/hub/hub-presets.js). Each loads from the picker, and the page shows the tokens and the
// predictions the engine computes in this Node process from the same Hub, whose ids are the Rust
// tokenizers library's.
import { createRequire } from 'node:module';
import { loadEngine } from '../../web/src/index.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { presetRepos } from '../hub/hub-presets.js';
import { launchBrowser, openWhen, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const { Tokenizer: RustTokenizer } = createRequire(import.meta.url)('tokenizers');
const PRESETS = [
  ['bert-base-uncased', 'BERT', 'Hello world! The quick brown fox sat on the [MASK].'],
  ['distilbert-base-uncased', 'DistilBERT', 'Hello world! The quick brown fox sat on the [MASK].'],
  ['roberta-base', 'RoBERTa', 'Hello world! The quick brown fox sat on the <mask>.'],
  ['gpt2', 'GPT-2', 'Hello world! The quick brown fox'],
  ['distilgpt2', 'GPT-2', 'Hello world! The quick brown fox'],
];

let browser, pageServer, hub, engine, repos;

beforeAll(async () => {
  repos = presetRepos();
  repos.distilgpt2 = repos.gpt2;
  [browser, pageServer, hub, engine] = await Promise.all([
    launchBrowser(), servePage(), startFakeHub({ repos }), loadEngine(),
  ]);
}, 120000);

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), pageServer?.close(), hub?.close()]);
});

async function loadEnded(page) {
  await page.waitForFunction(() => ['ready', 'error', 'cancelled'].includes(document.body.dataset.model) &&
    document.querySelector('#model-progress').hidden, null, { timeout: 60000 });
  return page.evaluate(() => document.body.dataset.model);
}

test.each(PRESETS)('the picker loads %s from the Hub with its tokenizer in the older layout, and shows the engine\'s tokens', async (id, kind, sentence) => {
  const model = await engine.loadModel(id, { hubUrl: hub.url });
  const expected = model.run(sentence);
  const rust = RustTokenizer.fromString(repos[id].files['tokenizer.json'].toString());
  expect(Array.from(expected.ids)).toEqual(Array.from((await rust.encode(sentence)).getIds()));

  const { page, problems } = await openWhen(browser, `${pageServer.url}?hub=${encodeURIComponent(hub.url)}`,
    () => document.body.dataset.state === 'ready');
  await page.selectOption('#model-choice', id);
  await page.click('#model-load');
  await expect(loadEnded(page)).resolves.toBe('ready');
  await expect(page.locator('#model-status').textContent()).resolves
    .toMatch(new RegExp(`^${id} \\(from 127\\.0\\.0\\.1:\\d+, not the Hugging Face Hub\\): ${kind}, 2 layers × 4 heads`));
  await page.fill('#sentence', sentence);
  await page.waitForFunction((tokens) => document.body.dataset.state === 'ready' &&
    [...document.querySelectorAll('#tokens .mh-token')].map((e) => e.textContent).join('\u0001') === tokens,
  expected.tokens.join('\u0001'), { timeout: 30000 });
  // The first prediction list: at the mask, or (causal) after the last token.
  const at = model.causal ? expected.tokens.length - 1 : expected.tokens.findIndex((t) => /\[MASK\]|<mask>/.test(t));
  expect(at).toBeGreaterThan(0);
  const shown = await page.locator('#predictions figure').first().locator('.prediction-token').allTextContents();
  expect(shown).toEqual(expected.predictions(at, 5).map((p) => `“${p.token}”`));
  if (id === 'bert-base-uncased') await screenshot(page, 'preset-bert-base-uncased');
  expect(problems.filter((p) => !/ net::ERR_ABORTED$/.test(p))).toEqual([]);
  await page.close();
  model.dispose();
});
