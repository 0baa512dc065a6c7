// The model writes on the page, offline, as `npm start` builds it. The causal built-in model
// continues the Henry/William sentence: its tokens stream into the token list as they come
// (marked as written) while the head view grows a row at a time, and what it writes, and the
// probability of each token in the strip, are what the engine in this Node process writes. A
// step chosen in the strip pins its query's row; the link reproduces the writing; switching off
// layer 2 head 1 changes what it writes; Stop ends it mid-way and the page writes again after.
// From the fake Hub, a SmolLM2-shaped checkpoint writes, and a ChatML-templated (Qwen2.5-shaped)
// and a Llama-3-shaped one take the sentence as a chat message: the token list shows the rendered
// prompt, special tokens included, with one BOS at most. Screenshots go to screenshots/.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../web/src/index.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { launchBrowser, openWhen, screenshot } from './browser.js';
import { servePage } from './page-server.js';

const CHECKPOINTS = fileURLToPath(new URL('../fixtures/checkpoints/', import.meta.url));
const HENRY = 'Yesterday Henry met William at the station. Today Henry met';

let browser, pageServer, hub, engine, causal;
beforeAll(async () => {
  engine = await loadEngine();
  [browser, pageServer, hub, causal] = await Promise.all([launchBrowser(), servePage(), startFakeHub({
    repos: {
      'HuggingFaceTB/SmolLM2-135M': { folder: join(CHECKPOINTS, 'llama-smol') },
      'Qwen/Qwen2.5-0.5B-Instruct': { folder: join(CHECKPOINTS, 'qwen2') }, // ChatML, with a default system message
      'meta-llama/Llama-3.2-1B-Instruct': { folder: join(CHECKPOINTS, 'llama3-scaled') }, // a template that writes the BOS
    },
  }), engine.loadModel({ builtin: 'causal' })]);
}, 120000);
afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), pageServer?.close(), hub?.close()]);
});

/** The page at `hash` (pointed at the fake Hub), once the model it names has drawn its sentence. */
function open(hash) {
  return openWhen(browser, `${pageServer.url}?hub=${encodeURIComponent(hub.url)}${hash}`,
    () => document.body.dataset.state === 'ready' && document.body.dataset.model !== 'loading');
}

/** Clicks Write and waits until the writing has ended and the page has asked for all it shows. */
async function write(page) {
  await page.click('#write-button');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && document.querySelector('#write-steps li'), null, { timeout: 60000 });
}

/** The ids written, as the link holds them. */
const writtenIds = (page) => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('out').split(',').map(Number);
const strip = (page) => page.locator('#write-steps button').evaluateAll((list) => list.map((b) => ({
  token: b.querySelector('.write-step-token').textContent, probability: Number(b.dataset.probability),
})));

test('the causal built-in model writes what the engine writes, token by token, each row growing the head view', async () => {
  const { page, problems } = await open(`#model=causal&view=head&layer=2&head=1&new=48&sentence=${encodeURIComponent(HENRY)}`);
  const p = await page.locator('#tokens .mh-token').count();
  // What the token list and the heatmap looked like after each change, as the writing went on.
  await page.evaluate(() => {
    window.seen = { tokens: new Set(), sizes: new Set() };
    const look = () => {
      window.seen.tokens.add(document.querySelectorAll('#tokens .mh-token').length);
      const label = document.querySelector('#view .mh-matrix')?.getAttribute('aria-label') ?? '';
      window.seen.sizes.add(label.match(/(\d+) × \d+ weights/)?.[1]);
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await write(page);
  const seen = await page.evaluate(() => ({ tokens: [...window.seen.tokens], sizes: [...window.seen.sizes].filter(Boolean).map(Number) }));
  // Streamed: the list passed through most lengths between the prompt's and the end's, and the
  // heatmap through several (it draws as often as it can without taking the model's cores).
  expect(seen.tokens.filter((n) => n > p && n < p + 48).length).toBeGreaterThan(24);
  expect(seen.sizes.filter((n) => n > p && n < p + 48).length).toBeGreaterThan(1);
  await expect(page.locator('#view .mh-matrix').first().getAttribute('aria-label')).resolves.toContain(`${p + 48} × ${p + 48} weights`);

  const writing = causal.generate(HENRY, { maxNewTokens: 48 });
  const steps = [];
  for await (const step of writing) steps.push(step);
  expect(writtenIds(page)).toEqual(steps.map((s) => s.id));
  const shown = await strip(page);
  expect(shown.map((s) => s.token)).toEqual(steps.map((s) => s.token));
  shown.forEach((s, i) => expect(s.probability).toBeCloseTo(steps[i].probability, 6));
  await expect(page.locator('#tokens .mh-written').count()).resolves.toBe(48);
  await expect(page.locator('#status').textContent()).resolves.toMatch(/^Wrote 48 tokens \(as many as asked\): prefill [\d.]+ ms, [\d.]+ ms per token \([\d.]+ tokens\/s\)\.$/);

  // The first written token, chosen in the strip: its alternatives, and the head pins the row of the query that chose it.
  await page.locator('#write-steps button').first().click();
  await expect(page.locator('#write-chosen').textContent()).resolves.toContain(`“${steps[0].token}” (`);
  await page.waitForFunction((row) => document.querySelectorAll('#view .mh-head-queries button')[row]?.getAttribute('aria-pressed') === 'true', p - 1);
  await screenshot(page, 'write-causal-head');
  // Embed: the iframe's link holds the writing; the element's note says it shows the sentence alone.
  await page.click('#embed');
  await expect(page.locator('#embed-iframe').inputValue()).resolves.toContain('out=');
  await expect(page.locator('#embed-element-note').textContent()).resolves.toContain('not the 48 tokens the model wrote after it');
  await page.keyboard.press('Escape');
  expect(problems).toEqual([]);

  // The link writes the same text again, strip and all.
  const { page: again, problems: problems2 } = await openWhen(browser, page.url(),
    () => document.body.dataset.state === 'ready' && document.querySelector('#write-steps li'));
  await expect(strip(again)).resolves.toEqual(shown.map((s) => ({ ...s, probability: expect.closeTo(s.probability, 6) })));
  await expect(again.locator('#tokens .mh-token').allTextContents()).resolves.toEqual(await page.locator('#tokens .mh-token').allTextContents());
  await expect(again.locator('#status').textContent()).resolves.toMatch(/the last 48 written by the model/);
  expect(problems2).toEqual([]);
}, 120000);

test('with layer 2 head 1 switched off, the same prompt and seed write something else, as the engine does', async () => {
  const { page, problems } = await open(`#model=causal&view=grid&layer=2&ablate=2.1&new=8&sentence=${encodeURIComponent(HENRY)}`);
  await write(page);
  const off = [];
  for await (const step of causal.generate(HENRY, { maxNewTokens: 8, ablate: [{ layer: 1, head: 0 }] })) off.push(step.id);
  const on = [];
  for await (const step of causal.generate(HENRY, { maxNewTokens: 8 })) on.push(step.id);
  expect(writtenIds(page)).toEqual(off);
  expect(off).not.toEqual(on);
  expect(problems).toEqual([]);
}, 60000);

test('Stop ends the writing between two steps, keeps what was written, and the page writes again', async () => {
  const { page, problems } = await open(`#model=causal&new=256&sentence=${encodeURIComponent(HENRY)}`);
  await expect(page.locator('#write-new').inputValue()).resolves.toBe('256');
  // Stop as soon as the first token shows.
  await page.evaluate(() => new MutationObserver((_, observer) => {
    observer.disconnect();
    document.querySelector('#write-button').click();
  }).observe(document.querySelector('#write-steps'), { childList: true }));
  await write(page);
  await expect(page.locator('#status').textContent()).resolves.toMatch(/^Wrote \d+ tokens? \(stopped\)/);
  const written = writtenIds(page).length;
  expect(written).toBeLessThan(128 - 13); // the model's length would have stopped it there
  await expect(page.locator('#write-button').textContent()).resolves.toBe('Write');
  await page.fill('#write-new', '3');
  await write(page);
  await expect(page.locator('#write-steps li').count()).resolves.toBe(3);
  expect(problems).toEqual([]);
}, 60000);

test('a SmolLM2-shaped checkpoint from the Hub writes; typing a new sentence stops it and drops what was written', async () => {
  const { page, problems } = await open('#model=HuggingFaceTB/SmolLM2-135M&view=grid&layer=1&new=16&sentence=The+children+were+walking');
  await write(page);
  const model = await engine.loadModel(join(CHECKPOINTS, 'llama-smol/'));
  const ids = [];
  for await (const step of model.generate('The children were walking', { maxNewTokens: 16 })) ids.push(step.id);
  model.dispose();
  expect(writtenIds(page)).toEqual(ids.slice(0, writtenIds(page).length));
  await screenshot(page, 'write-smollm2-grid');
  await page.fill('#sentence', 'The old river');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && !document.querySelector('#tokens .mh-written'));
  expect(new URL(page.url()).hash).not.toContain('out=');
  await expect(page.locator('#write-steps li').count()).resolves.toBe(0);
  expect(problems).toEqual([]);
}, 60000);

test('a chat: the template renders the message (ChatML with its default system message; Llama 3 with one BOS), and the model answers', async () => {
  const { page, problems } = await open('#model=Qwen/Qwen2.5-0.5B-Instruct&new=4&sentence=Hello+there.');
  await page.check('#write-chat');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && document.querySelector('#tokens').textContent.startsWith('<|im_start|>'));
  await expect(page.locator('#tokens .mh-token').allTextContents().then((t) => t.join(''))).resolves.toBe(
    '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' +
    '<|im_start|>user\nHello there.<|im_end|>\n<|im_start|>assistant\n');
  await write(page);
  expect(new URL(page.url()).hash).toContain('chat=1');
  await expect(page.locator('#write-steps li').count()).resolves.toBeGreaterThan(0);
  await screenshot(page, 'write-chat');

  const llama = await open('#model=meta-llama/Llama-3.2-1B-Instruct&chat=1&sentence=Hello+there.');
  const tokens = await llama.page.locator('#tokens .mh-token').allTextContents();
  expect(tokens[0]).toBe('<|begin_of_text|>');
  expect(tokens.filter((t) => t === '<|begin_of_text|>')).toHaveLength(1);
  // A model without a template offers no chat.
  const plain = await open('#model=HuggingFaceTB/SmolLM2-135M&sentence=Hello');
  await expect(plain.page.locator('#write-chat-control').isHidden()).resolves.toBe(true);
  expect([...problems, ...llama.problems, ...plain.problems]).toEqual([]);
}, 90000);
