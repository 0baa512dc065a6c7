// The lines view of a long text: past 256 queries it draws one query's lines (or the lines into
// one key) at a time, the last query's until another is pointed at, and says so. Every line at
// once was seconds of rasterising at 1024 tokens (measured here: a 3.9 s frame for 14 heads).
// Seeded causal weights, 300 tokens and 3 heads, drawn by the view imported unbundled into
// tests/e2e/pages/views.html.
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const N = 300, HEADS = 3;

let browser, server, page;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchBrowser(), startServer({ root: REPO })]);
  ({ page } = await browser.open(`${server.url}tests/e2e/pages/views.html`, { width: 900, height: 900 }));
});

afterAll(async () => {
  await page?.close();
  await Promise.all([browser?.close(), server?.close()]);
});

test('past 256 queries the lines view draws the last query\'s lines, then those of the query or key pointed at', async () => {
  const out = await page.evaluate(async ({ n, heads }) => {
    const { VIEWS } = await import('/web/src/views/views.js');
    let s = 7;
    const random = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const weights = Array.from({ length: heads }, () => {
      const w = new Float32Array(n * n);
      for (let i = 0; i < n; i++) {
        let sum = 0;
        for (let j = 0; j <= i; j++) sum += (w[i * n + j] = Math.exp(6 * random()));
        for (let j = 0; j <= i; j++) w[i * n + j] /= sum;
      }
      return w;
    });
    const root = document.body.appendChild(document.createElement('div'));
    root.style.width = '800px';
    const view = VIEWS.lines(root);
    view.update({ tokens: Array.from({ length: n }, (_, i) => `t${i}`), unknown: [], weights, heads: [0, 1, 2], causal: true });
    const canvas = root.querySelector('canvas');
    const strong = () => Number(canvas.dataset.lines);
    // Lines above 0.01 from query i, or into key j, in every head.
    const fromQuery = (i) => weights.reduce((sum, w) => sum + w.subarray(i * n, (i + 1) * n).filter((v) => v > 0.01).length, 0);
    const intoKey = (j) => weights.reduce((sum, w) => sum + Array.from({ length: n }, (_, i) => w[i * n + j]).filter((v) => v > 0.01).length, 0);
    const out = {
      note: root.querySelector('.mh-lines-note').hidden ? null : root.querySelector('.mh-lines-note').textContent,
      last: [strong(), fromQuery(n - 1)],
      active: [...root.querySelectorAll('.mh-lines-query.mh-active')].map((b) => b.textContent),
    };
    const frame = () => new Promise(requestAnimationFrame);
    root.querySelectorAll('.mh-lines-query')[10].dispatchEvent(new PointerEvent('pointerover', { bubbles: true }));
    await frame();
    out.query = [strong(), fromQuery(10)];
    root.querySelectorAll('.mh-lines-key')[3].dispatchEvent(new PointerEvent('pointerover', { bubbles: true }));
    await frame();
    out.key = [strong(), intoKey(3)];
    view.update({ tokens: ['a', 'b'], unknown: [], weights: [Float32Array.of(1, 0, 0.4, 0.6)], heads: [0], causal: true });
    out.shortNote = root.querySelector('.mh-lines-note').hidden;
    out.short = strong();
    view.destroy();
    root.remove();
    return out;
  }, { n: N, heads: HEADS });
  expect(out.note).toBe(`${N} queries: the lines of one at a time. Point at a query or a key, or move through the queries with the keyboard.`);
  expect(out.last[0]).toBe(out.last[1]);
  expect(out.last[0]).toBeGreaterThan(0);
  expect(out.active).toEqual([`t${N - 1}`]);
  expect(out.query[0]).toBe(out.query[1]);
  expect(out.key[0]).toBe(out.key[1]);
  expect(out.key[0]).toBeGreaterThan(out.query[0]); // 297 queries see key 3, query 10 sees 11 keys
  // A short text draws every line again, with no note: 3 weights above 0.01.
  expect(out.shortNote).toBe(true);
  expect(out.short).toBe(3);
});
