// The page with real-size models, in Chromium, as `npm start` serves it (vite preview over build/demo,
// cross-origin isolated, so on every core), the models from the fake Hub (tests/hub/fake-hub.js):
// - typing at 128 tokens with a BERT-base-sized model (12 layers × 12 heads, F32, random weights)
//   into the model view of its 144 heads, as below;
// - typing at 128 tokens with a SmolLM2-135M-shaped model (30 layers × 9 heads on 3 key/value
//   heads, BF16, random weights): the time from the last keystroke to the grid of one layer, and
//   of every layer (the model view), drawn on screen (the run's layers come as they are computed:
//   the heatmaps on screen painted) and whole (every heatmap painted, the page ready), and the
//   longest frame meanwhile;
// - Qwen2.5-0.5B-shaped (24 layers × 14 heads on 2) at the page's 1024 tokens: the load, the run,
//   then each view in turn, with the time until it is painted and the longest task on the page's
//   thread (a frozen page is one long task).
// The checkpoints are made into build/checkpoints/ by make_checkpoints.py when missing. Run by
// `npm run bench` (bench.js), or alone: `node tools/bench/page.js`.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startFakeHub } from '../../tests/hub/fake-hub.js';
import { launchBrowser } from '../../tests/e2e/browser.js';
import { servePage } from '../../tests/e2e/page-server.js';
import { loadEngine } from '../../web/src/index.js';
import { checkpoint } from './checkpoints.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MODELS = { 'google-bert/bert-base-uncased': 'bert-base', 'HuggingFaceTB/SmolLM2-135M': 'smollm2-135m', 'Qwen/Qwen2.5-0.5B-Instruct': 'qwen2.5-0.5b' };
const WORDS = 'the quick brown fox jumps over the lazy dog and then it runs away'.split(' ');
const KEYSTROKES = 5;

/** `words` words of WORDS, the last "away" (typing deletes its y and types it again). */
const textOf = (words) => [...Array.from({ length: words - 1 }, (_, i) => WORDS[i % WORDS.length]), 'away'].join(' ');

/** The longest textOf that `folder`'s tokenizer makes into at most `tokens` tokens. */
async function textOfTokens(folder, tokens) {
  const engine = await loadEngine({ threads: 1 });
  const model = await engine.loadModel(folder);
  try {
    let words = 1;
    while (model.tokenize(textOf(words + 1)).ids.length <= tokens) words++;
    return textOf(words);
  } finally {
    engine.dispose();
  }
}

/**
 * In the page: the longest task and frame since the last call, and, after each keystroke, when
 * the view's heatmaps on screen were painted (a drawing started after it, and only heatmaps off
 * screen, or none, are left) and when the page was ready with every one painted.
 */
function watchPage() {
  const w = (window.bench = { long: 0, frame: 0, input: 0, painted: [], shown: [] });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.long = Math.max(w.long, e.duration);
  }).observe({ type: 'longtask', buffered: false });
  let last = performance.now();
  const frame = (now) => {
    w.frame = Math.max(w.frame, now - last);
    last = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  document.querySelector('#sentence').addEventListener('input', () => { w.input = performance.now(); w.waiting = true; w.drawing = w.showing = false; });
  new MutationObserver((records) => {
    const view = document.querySelector('#view > *');
    if (w.waiting && !w.showing && view) {
      const busy = view.getAttribute('aria-busy') === 'true';
      // A drawing may start and end in one task: its aria-busy shows in the records, not the state.
      w.drawing ||= records.some((r) => r.target === view && r.attributeName === 'aria-busy');
      if (w.drawing && (!busy || view.dataset.painting === 'offscreen')) {
        w.showing = true;
        const input = w.input;
        requestAnimationFrame(() => w.shown.push(performance.now() - input));
      }
    }
    if (document.body.dataset.state !== 'ready' || document.querySelector('[aria-busy="true"]') || !w.waiting) return;
    w.waiting = false;
    const input = w.input;
    requestAnimationFrame(() => w.painted.push(performance.now() - input));
  }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-state', 'aria-busy', 'data-painting'] });
}

const painted = (page) => page.waitForFunction(() => document.body.dataset.state === 'ready' && !document.querySelector('[aria-busy="true"]'),
  null, { timeout: 900000 });
const worst = (page) => page.evaluate(() => {
  const { long, frame } = window.bench;
  Object.assign(window.bench, { long: 0, frame: 0 });
  return { longTask: Math.round(long), longestFrame: Math.round(frame) };
});

/**
 * Median ms from the last keystroke to the heatmaps on screen painted, and to the painted page,
 * over KEYSTROKES letters deleted and typed again.
 */
async function typing(page) {
  await page.locator('#sentence').focus();
  await page.keyboard.press('End');
  const times = [], shown = [];
  for (let k = 0; k < KEYSTROKES; k++) {
    for (const key of ['Backspace', 'y']) { // "away" → "awa" → "away"
      const before = await page.evaluate(() => window.bench.painted.length);
      await page.keyboard.press(key);
      await page.waitForFunction((count) => window.bench.painted.length > count && !window.bench.waiting, before, { timeout: 300000 });
      if (key === 'y') {
        times.push(await page.evaluate(() => window.bench.painted.at(-1)));
        shown.push(await page.evaluate(() => (window.bench.showing ? window.bench.shown.at(-1) : window.bench.painted.at(-1))));
      }
    }
  }
  const median = (list) => Math.round([...list].sort((a, b) => a - b)[list.length >> 1]);
  return { shown: median(shown), whole: median(times) };
}

export async function benchPage() {
  execFileSync(process.execPath, [`${ROOT}tools/build.js`, 'wasm', 'demo'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const repos = Object.fromEntries(Object.entries(MODELS).map(([id, size]) => [id, { folder: checkpoint(size) }]));
  const [browser, pageServer, hub] = await Promise.all([launchBrowser(), servePage(), startFakeHub({ repos })]);
  const open = async (id, hash) => {
    const started = Date.now();
    const { page, problems } = await browser.open(`${pageServer.url}?hub=${encodeURIComponent(hub.url)}#model=${encodeURIComponent(id)}&${hash}`,
      { width: 1200, height: 900 });
    await page.evaluate(watchPage);
    await page.waitForFunction((name) => document.querySelector('#model-status').textContent.startsWith(name), id, { timeout: 900000 });
    await painted(page);
    return { page, problems, ms: Date.now() - started };
  };
  try {
    const results = { threads: 0, typing: {}, bert: {}, views: [] };
    // Typing at 128 tokens with a BERT-base-sized model, into the model view of its 144 heads.
    const bertText = await textOfTokens(repos['google-bert/bert-base-uncased'].folder, 128);
    const bert = await open('google-bert/bert-base-uncased', `view=grid&layer=all&sentence=${encodeURIComponent(bertText)}`);
    results.bert.tokens = await bert.page.locator('#tokens .mh-token').count();
    await worst(bert.page);
    results.bert.modelView = await typing(bert.page);
    Object.assign(results.bert, await worst(bert.page));
    results.bert.problems = bert.problems;
    await bert.page.close();

    // Typing at 128 tokens.
    const typed = await textOfTokens(repos['HuggingFaceTB/SmolLM2-135M'].folder, 128);
    const smol = await open('HuggingFaceTB/SmolLM2-135M', `view=grid&layer=2&sentence=${encodeURIComponent(typed)}`);
    results.threads = await smol.page.evaluate(() => Number(document.body.dataset.threads));
    results.typing.tokens = await smol.page.locator('#tokens .mh-token').count();
    await worst(smol.page);
    results.typing.grid = await typing(smol.page);
    await smol.page.selectOption('#layer', { value: 'all' });
    await painted(smol.page);
    results.typing.modelView = await typing(smol.page);
    Object.assign(results.typing, await worst(smol.page));
    results.typing.problems = smol.problems;
    await smol.page.close();

    // Qwen2.5 at the page's 1024 tokens: typed into the field (a link holds 2000 characters).
    const qwen = await open('Qwen/Qwen2.5-0.5B-Instruct', 'view=grid&layer=1&sentence=The+cat.');
    results.qwenLoadMs = qwen.ms;
    const page = qwen.page;
    let started = Date.now();
    await page.fill('#sentence', textOf(1500));
    await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('1024 tokens'), null, { timeout: 900000 });
    await painted(page);
    results.views.push({ view: 'the run and the grid of layer 2', ms: Date.now() - started, ...await worst(page) });
    results.qwenNotice = await page.locator('#notice').textContent();
    for (const [what, act] of [
      ['head', () => page.check('input[name=view][value=head]')],
      ['lines', () => page.check('input[name=view][value=lines]')],
      ['average', () => page.check('input[name=view][value=average]')],
      ['rollout', () => page.check('input[name=view][value=rollout]')],
      ['four steps', () => page.check('input[name=view][value=steps]')],
      ['grid of layer 21', async () => { await page.check('input[name=view][value=grid]'); await page.selectOption('#layer', { value: '20' }); }],
      ['model view', () => page.selectOption('#layer', { value: 'all' })],
    ]) {
      started = Date.now();
      await act();
      await painted(page);
      results.views.push({ view: what, ms: Date.now() - started, ...await worst(page) });
    }
    results.qwenProblems = qwen.problems;
    return results;
  } finally {
    await Promise.all([browser.close(), pageServer.close(), hub.close()]);
  }
}

export function reportPage(r) {
  const t = r.typing;
  const lines = [
    `The page in Chromium, ${r.threads} threads (times from this run only):`,
    `  SmolLM2-135M-shaped, ${t.tokens} tokens, last keystroke to the heatmaps on screen painted, then to all painted (medians of ` +
      `${KEYSTROKES}): grid of one layer ${t.grid.shown}, ${t.grid.whole} ms; every layer (270 heads) ${t.modelView.shown}, ` +
      `${t.modelView.whole} ms; longest task ${t.longTask} ms, longest frame ${t.longestFrame} ms` +
      `${t.problems.length ? `; problems: ${t.problems.join('; ')}` : ''}`,
    `  BERT-base-shaped, ${r.bert.tokens} tokens, the same into the model view (144 heads): ${r.bert.modelView.shown}, ` +
      `${r.bert.modelView.whole} ms; longest task ${r.bert.longTask} ms, longest frame ${r.bert.longestFrame} ms` +
      `${r.bert.problems.length ? `; problems: ${r.bert.problems.join('; ')}` : ''}`,
    `  Qwen2.5-0.5B-shaped (988 MB BF16) from the fake Hub: loaded and drawn in ${(r.qwenLoadMs / 1000).toFixed(1)} s; ${r.qwenNotice}`,
  ];
  for (const v of r.views) lines.push(`    ${v.view}: ${(v.ms / 1000).toFixed(1)} s, longest task ${v.longTask} ms, longest frame ${v.longestFrame} ms`);
  if (r.qwenProblems.length) lines.push(`  problems: ${r.qwenProblems.join('; ')}`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(reportPage(await benchPage()));
