// Typing with a BERT-base-sized model (12 layers × 12 heads, d_model 768, MLP 3072, vocabulary
// 30522: 440 MB of F32 weights, random, written here) at 128 tokens, in the page as `npm start`
// serves it (cross-origin isolated, so on every core), loaded from the fake Hub. The page must keep
// drawing frames while it computes, and redraw the grid after each keystroke. Reported, not
// asserted: the time from the last keystroke to the painted grid (the heads on screen, and every
// head), after single keystrokes and after bursts, and the longest frame while typing. KEYSTROKES
// and BURSTS are few, to keep CI short: its medians are a glance; npm run bench's page part measures.
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeHub } from '../hub/fake-hub.js';
import { launchBrowser, openWhen } from './browser.js';
import { servePage } from './page-server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const ID = 'multihead-test/bert-base-size';
const SIZE = { vocab: 30522, d: 768, layers: 12, heads: 12, ff: 3072, positions: 512 };
const TOKENS = 128;
const KEYSTROKES = 3, BURSTS = 2; // letters deleted and typed again; bursts of four keystrokes

let browser, pageServer, hub, modelDir;

/** The tensors of a BertModel of SIZE, as Hugging Face names and shapes them. */
function tensors() {
  const { vocab, d, layers, ff, positions } = SIZE;
  const list = [['embeddings.word_embeddings.weight', [vocab, d]], ['embeddings.position_embeddings.weight', [positions, d]],
    ['embeddings.token_type_embeddings.weight', [2, d]], ['embeddings.LayerNorm.weight', [d]], ['embeddings.LayerNorm.bias', [d]]];
  for (let l = 0; l < layers; l++) {
    const p = `encoder.layer.${l}.`;
    for (const name of ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']) {
      list.push([`${p}${name}.weight`, [d, d]], [`${p}${name}.bias`, [d]]);
    }
    list.push([`${p}attention.output.LayerNorm.weight`, [d]], [`${p}attention.output.LayerNorm.bias`, [d]],
      [`${p}intermediate.dense.weight`, [ff, d]], [`${p}intermediate.dense.bias`, [ff]],
      [`${p}output.dense.weight`, [d, ff]], [`${p}output.dense.bias`, [d]],
      [`${p}output.LayerNorm.weight`, [d]], [`${p}output.LayerNorm.bias`, [d]]);
  }
  return list;
}

/** Writes model.safetensors: LayerNorm weights 1, every other value uniform in ±0.05 (a seeded LCG). */
async function writeWeights(path) {
  const list = tensors();
  const header = {};
  let offset = 0;
  for (const [name, shape] of list) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const out = createWriteStream(path);
  const write = (chunk) => new Promise((done, fail) => out.write(chunk, (error) => (error ? fail(error) : done())));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  await write(length);
  await write(Buffer.from(json));
  let state = 12345;
  for (const [name, shape] of list) {
    let left = shape.reduce((a, b) => a * b, 1);
    while (left > 0) {
      const values = new Float32Array(Math.min(left, 1 << 20));
      if (/LayerNorm\.weight$/.test(name)) values.fill(1);
      else if (!/LayerNorm\.bias$/.test(name)) {
        for (let i = 0; i < values.length; i++) {
          state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
          values[i] = (state / 2 ** 32 - 0.5) * 0.1;
        }
      }
      await write(Buffer.from(values.buffer));
      left -= values.length;
    }
  }
  await new Promise((done) => out.end(done));
}

beforeAll(async () => {
  modelDir = await mkdtemp(join(tmpdir(), 'multihead-bert-base-'));
  const { vocab, d, layers, heads, ff, positions } = SIZE;
  await writeFile(join(modelDir, 'config.json'), JSON.stringify({
    model_type: 'bert', architectures: ['BertModel'], vocab_size: vocab, hidden_size: d, num_hidden_layers: layers,
    num_attention_heads: heads, intermediate_size: ff, hidden_act: 'gelu', max_position_embeddings: positions,
    type_vocab_size: 2, layer_norm_eps: 1e-12,
  }));
  // A small WordPiece vocabulary: its ids are a subset of the model's 30522.
  await copyFile(join(REPO, 'tests/fixtures/checkpoints/bert-12x12/tokenizer.json'), join(modelDir, 'tokenizer.json'));
  await writeWeights(join(modelDir, 'model.safetensors'));
  [browser, pageServer, hub] = await Promise.all([
    launchBrowser(), servePage(), startFakeHub({ repos: { [ID]: { folder: modelDir } } }),
  ]);
}, 300000);

afterAll(async () => {
  await Promise.all([browser?.close(), pageServer?.close(), hub?.close()]);
  if (modelDir) await rm(modelDir, { recursive: true, force: true });
});

test('with a BERT-base-sized model at 128 tokens the page redraws the grid after each keystroke, on every core, without freezing', async () => {
  // 126 one-token words between [CLS] and [SEP]; the last keystrokes retype the last word's letter.
  const words = 'the cat and the dog came back because every bird could fly after the evening'.split(' ');
  const text = [...Array.from({ length: TOKENS - 3 }, (_, i) => words[i % words.length]), 'evening'].join(' ');
  const hash = `#${new URLSearchParams({ model: ID, view: 'grid', layer: 'all', sentence: text })}`;
  const { page, problems } = await openWhen(browser, `${pageServer.url}?hub=${encodeURIComponent(hub.url)}${hash}`,
    () => document.body.dataset.model === 'ready' && document.body.dataset.state === 'ready', { width: 1200, height: 900 });
  await page.waitForFunction((n) => document.querySelectorAll('#tokens .mh-token').length === n, TOKENS, { timeout: 60000 });
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  expect(await page.evaluate(() => Number(document.body.dataset.threads))).toBe(cores);
  expect(await page.locator('.mh-grid-card canvas[role="img"]').count()).toBe(SIZE.layers * SIZE.heads);
  await page.waitForFunction(() => !document.querySelector('.mh-grid[aria-busy]')); // the first drawing is done

  // In the page: when each input event came; when the heatmaps on screen were drawn (the layers
  // come as they are computed, and the grid paints those on screen first, then the others, in
  // slices: data-painting says "offscreen" once only those, painted or awaited, are left), and
  // when the page was ready with every heatmap drawn (aria-busy gone), each at the frame after it;
  // and the longest gap between frames (a frozen page draws none).
  await page.evaluate(() => {
    const t = (window.typing = { input: 0, screen: [], whole: [], longestFrame: 0, frames: 0, long: 0 });
    document.querySelector('#sentence').addEventListener('input', () => { t.input = performance.now(); t.waiting = 'screen'; });
    new MutationObserver(() => {
      if (!t.waiting) return;
      const ready = document.body.dataset.state === 'ready';
      const grid = document.querySelector('.mh-grid');
      const busy = grid.hasAttribute('aria-busy');
      const input = t.input;
      // The run's layers come as they are computed, so the heads on screen may be drawn before it ends.
      if (t.waiting === 'screen' && ((ready && !busy) || grid.dataset.painting === 'offscreen')) {
        t.waiting = 'whole';
        requestAnimationFrame(() => t.screen.push(performance.now() - input));
      }
      if (t.waiting === 'whole' && ready && !busy) {
        t.waiting = null;
        requestAnimationFrame(() => t.whole.push(performance.now() - input));
      }
    }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-state', 'aria-busy', 'data-painting'] });
    let last = performance.now();
    const frame = (now) => {
      t.longestFrame = Math.max(t.longestFrame, now - last);
      t.frames++;
      if (now - last >= 45) t.long++; // 50 ms at 60 frames a second (three frame times), give or take
      last = now;
      if (!t.stop) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  const field = page.locator('#sentence');
  await field.focus();
  await page.keyboard.press('End');
  const painted = (count) => page.waitForFunction((n) => window.typing.whole.length > n && !window.typing.waiting, count, { timeout: 60000 });
  const screen = [], whole = [];
  for (let k = 0; k < KEYSTROKES; k++) {
    for (const key of ['Backspace', 'g']) { // "evening" → "evenin" (two tokens) → "evening"
      const before = await page.evaluate(() => window.typing.whole.length);
      await page.keyboard.press(key);
      await painted(before);
      if (key === 'g') {
        const { screen: s, whole: w } = await page.evaluate(() => window.typing);
        screen.push(s.at(-1));
        whole.push(w.at(-1));
      }
    }
  }
  // Bursts at 20 keystrokes a second: " the" typed after "evening", then deleted. The runs for the
  // texts in between are interrupted (or their answers dropped); the last text's is drawn.
  const burst = [];
  for (let k = 0; k < BURSTS; k++) {
    const before = await page.evaluate(() => window.typing.whole.length);
    for (const key of k % 2 ? ['Backspace', 'Backspace', 'Backspace', 'Backspace'] : ['Space', 't', 'h', 'e']) {
      await page.keyboard.press(key);
      await page.waitForTimeout(50);
    }
    await painted(before);
    burst.push(await page.evaluate(() => window.typing.screen.at(-1)));
  }
  const { longestFrame, frames, long } = await page.evaluate(() => { window.typing.stop = true; return window.typing; });
  // A letter deleted and typed again while the run without it is in flight: that run's answer is
  // stale, and the sentence on screen is what the field holds again, so the page is ready.
  await page.keyboard.press('Backspace');
  await page.waitForFunction(() => document.body.dataset.state === 'busy');
  await page.keyboard.press('g');
  await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30000 });
  await expect(page.locator('#status').textContent()).resolves.toMatch(new RegExp(`^${TOKENS} tokens, computed in`));
  expect(await page.locator('#tokens .mh-token').count()).toBe(TOKENS);
  expect(await page.locator('.mh-grid-card canvas[role="img"]').count()).toBe(SIZE.layers * SIZE.heads);
  expect(problems).toEqual([]);
  const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1].toFixed(0);
  const range = (list) => `median ${median(list)} ms, min ${Math.min(...list).toFixed(0)}, max ${Math.max(...list).toFixed(0)}`;
  console.log(`BERT-base-sized model, ${TOKENS} tokens, ${cores} threads, last keystroke to painted grid over ${screen.length} keystrokes: ` +
    `heads on screen ${range(screen)}; every head ${range(whole)}; after a burst of 4 keystrokes at 20 a second, heads on screen ` +
    `${range(burst)}; longest frame while typing ${longestFrame.toFixed(0)} ms, and ${long} of ${frames} frames took 50 ms or more`);
  await page.close();
}, 300000);
