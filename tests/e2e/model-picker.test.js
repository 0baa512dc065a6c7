// The page's model picker with the user's own files, built as `npm start` builds it and driven in
// headless Chromium: a model folder chosen with "Open a model folder…" (the <input webkitdirectory>
// where showDirectoryPicker is missing), the three files dropped on the page, a folder that lacks
// files, and the picker's controls by keyboard, by name and on a 375 px phone. The model's output
// on the page is compared with what the engine computes in this Node process.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { launchBrowser, openWhen, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CHECKPOINTS = join(REPO, 'tests/fixtures/checkpoints');
const SENTENCE = 'The cat sat on the <mask> near the door.';

let browser, pageServer, engine, roberta;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, pageServer, roberta] = await Promise.all([
    launchBrowser(), servePage(), engine.loadModel(join(CHECKPOINTS, 'roberta')),
  ]);
}, 120000);

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), pageServer?.close()]);
});

function openPage(options) {
  return openWhen(browser, pageServer.url, () => document.body.dataset.state === 'ready', options);
}

/** Drops files (name → bytes) on the page, as a drag from the file manager would. */
async function dropFiles(page, files) {
  const list = Object.entries(files).map(([name, bytes]) => [name, [...bytes]]);
  const dataTransfer = await page.evaluateHandle((entries) => {
    const transfer = new DataTransfer();
    for (const [name, bytes] of entries) transfer.items.add(new File([new Uint8Array(bytes)], name));
    return transfer;
  }, list);
  for (const type of ['dragenter', 'dragover', 'drop']) await page.dispatchEvent('body', type, { dataTransfer });
}

// The engine cancels the requests it no longer needs (the rest of a body read only for its header),
// which Chromium reports as ERR_ABORTED: not problems.
const real = (problems) => problems.filter((p) => !/ net::ERR_ABORTED$/.test(p));

const fixture = async (folder, ...names) => Object.fromEntries(await Promise.all(names.map(async (name) =>
  [name, await readFile(join(CHECKPOINTS, folder, name))])));

async function loadEnded(page) {
  await page.waitForFunction(() => ['ready', 'error', 'cancelled'].includes(document.body.dataset.model) &&
    document.querySelector('#model-progress').hidden, null, { timeout: 60000 });
  return page.evaluate(() => document.body.dataset.model);
}

test('the three files dropped on the page load a model, whose <mask> predictions are the engine\'s', async () => {
  const { page, problems } = await openPage();
  await dropFiles(page, await fixture('roberta', 'config.json', 'tokenizer.json', 'model.safetensors'));
  await expect(loadEnded(page)).resolves.toBe('ready');
  await expect(page.locator('#model-status').textContent()).resolves
    .toMatch(/^The model files you dropped: RoBERTa, \d+ layers × \d+ heads, d_model \d+, up to \d+ tokens; masked LM/);
  expect(await page.evaluate(() => document.querySelector('#drop-target').hidden)).toBe(true);
  const expected = roberta.run(SENTENCE);
  await page.fill('#sentence', SENTENCE);
  await page.waitForFunction((n) => document.body.dataset.state === 'ready' && document.querySelectorAll('#tokens .mh-token').length === n,
    expected.tokens.length, { timeout: 20000 });
  const mask = expected.tokens.findIndex((t) => t.trim() === '<mask>');
  expect(mask).toBeGreaterThan(0);
  const tokens = await page.locator('#predictions figure .prediction-token').allTextContents();
  expect(tokens).toEqual(expected.predictions(mask, 5).map((p) => `“${p.token}”`));
  // A local folder cannot be named in a link: the hash names no model.
  expect(await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('model'))).toBeNull();
  await screenshot(page, 'picker-dropped');
  expect(real(problems)).toEqual([]);
  await page.close();
});

test('a folder without tokenizer.json and model.safetensors is refused with what it has; the model on screen stays', async () => {
  const { page, problems } = await openPage();
  await dropFiles(page, { 'config.json': Buffer.from('{}'), 'pytorch_model.bin': Buffer.from('x') });
  await page.waitForFunction(() => !document.querySelector('#model-message').hidden);
  await expect(page.locator('#model-message').textContent()).resolves.toBe('tokenizer.json and model.safetensors are missing from ' +
    'the dropped files (found only config.json and pytorch_model.bin): a model needs config.json, tokenizer.json and ' +
    'model.safetensors. Only model.safetensors weights can be read (not PyTorch .bin files).');
  expect(await page.locator('.mh-grid-card').count()).toBe(4);
  expect(real(problems)).toEqual([]);
  await page.close();
});

test('"Open a model folder…" reads a folder through the file input where there is no directory picker', async () => {
  const { page, problems } = await browser.open('about:blank');
  await page.addInitScript(() => { delete window.showDirectoryPicker; });
  await page.goto(pageServer.url);
  await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30000 });
  const chooser = page.waitForEvent('filechooser');
  await page.click('#model-folder');
  await (await chooser).setFiles(join(CHECKPOINTS, 'gpt2-legacy'));
  await expect(loadEnded(page)).resolves.toBe('ready');
  await expect(page.locator('#model-status').textContent()).resolves.toMatch(/^The model folder "gpt2-legacy": GPT-2, .* causal: it predicts the next token\.$/);
  expect(real(problems)).toEqual([]);
  await page.close();
});

test('the picker\'s controls are named, reached by Tab, and fit a 375 px phone', async () => {
  const { page, problems } = await openPage({ width: 375, height: 800 });
  await page.selectOption('#model-choice', 'other');
  await expect(page.locator('#model-id').isVisible()).resolves.toBe(true);
  const tree = await page.locator('.model').ariaSnapshot();
  for (const name of ['Model', 'Hub model id', 'Load', 'Open a model folder…']) expect(tree).toContain(`"${name}"`);
  const unnamed = tree.split('\n').filter((line) => /- (button|combobox|textbox|progressbar)(\s*\[[^\]]*\])?:?\s*$/.test(line));
  expect(unnamed).toEqual([]);
  const options = await page.locator('#model-choice option').allTextContents();
  expect(options).toEqual(['BERT: fills in a [MASK], 4 layers × 4 heads (3 MB)', 'GPT: predicts the next word, induction heads, 2 layers × 4 heads (2.4 MB)',
    'Reverser: an encoder–decoder that writes a list of words backwards, 2 + 2 layers × 4 heads (0.7 MB)', 'bert-base-uncased (masked LM, 440 MB)',
    'distilbert-base-uncased (masked LM, 268 MB)', 'roberta-base (masked LM, 499 MB)', 'gpt2 (next token, 548 MB)',
    'distilgpt2 (next token, 353 MB)', 'HuggingFaceTB/SmolLM2-135M (Llama, 9 query heads on 3 KV heads, 269 MB)',
    'HuggingFaceTB/SmolLM2-135M-Instruct (Llama, chat, 269 MB)', 'HuggingFaceTB/SmolLM2-360M-Instruct (Llama, chat, 724 MB)',
    'Qwen/Qwen2.5-0.5B-Instruct (Qwen2.5, 14 query heads on 2 KV heads, 988 MB)', 'Qwen/Qwen3-0.6B (Qwen3, QK-norm, 1.50 GB)',
    'TinyLlama/TinyLlama-1.1B-Chat-v1.0 (Llama, chat, 2.20 GB)', 'EleutherAI/pythia-70m (GPT-NeoX; revisions step0 to step143000, 166 MB)',
    'EleutherAI/pythia-160m (GPT-NeoX; revisions step0 to step143000, 375 MB)', 'unsloth/gemma-3-270m (Gemma 3, sliding windows of 512, 536 MB)',
    'google-t5/t5-small (T5 encoder–decoder: translates, summarises, 242 MB)', 'google/flan-t5-small (Flan-T5 encoder–decoder, instructions, 308 MB)',
    'facebook/bart-base (BART encoder–decoder, rewrites its input, 558 MB)', 'Helsinki-NLP/opus-mt-en-de (Marian: translates English to German, 298 MB)',
    'Helsinki-NLP/opus-mt-de-en (Marian: translates German to English, 298 MB)', 'Another Hub model…']);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

  await page.focus('#model-choice');
  const reached = [];
  for (let k = 0; k < 4; k++) {
    await page.keyboard.press('Tab');
    reached.push(await page.evaluate(() => document.activeElement.id));
  }
  expect(reached).toEqual(['model-id', 'model-revision', 'model-load', 'model-folder']);
  await screenshot(page, 'picker-phone');
  expect(real(problems)).toEqual([]);
  await page.close();
});
