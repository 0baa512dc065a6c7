// <multihead-view> in a host page that tries to break it (tests/e2e/pages/element.html), unbundled
// in headless Chromium: its numbers are the engine's, attributes and events work, three elements
// share one engine and one model, and the shadow root keeps the page's CSS and ours apart.
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { figureLayout } from '../../web/src/views/export.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
let browser, server, engine, model;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, server, model] = await Promise.all([launchBrowser(), startServer({ root: REPO }), engine.loadModel()]);
});

afterAll(async () => {
  engine?.dispose();
  await Promise.all([browser?.close(), server?.close()]);
});

async function openHost() {
  const opened = await browser.open(`${server.url}tests/e2e/pages/element.html`);
  await opened.page.waitForFunction(() => document.querySelectorAll('multihead-view').length === 3 && [...document.querySelectorAll('multihead-view')].every((e) => e.state === 'ready'),
    null, { timeout: 30000 }).catch((error) => { throw new Error(`${error.message}; problems: ${opened.problems.join('; ') || 'none'}`); });
  return opened;
}

const inShadow = (page, id, selector) => page.evaluate(([i, s]) =>
  [...document.getElementById(i).shadowRoot.querySelectorAll(s)].map((e) => e.textContent), [id, selector]);

function maxDiff(actual, expected) {
  return actual.reduce((m, v, i) => Math.max(m, Math.abs(v - expected[i])), 0);
}

test('each element shows the engine\'s tokens and attention, and all share one engine and one model', async () => {
  const { page, problems, responses } = await openHost();
  for (const [id, text] of [['grid', 'The cat sat on the mat.'], ['head', 'She gave him the book.'], ['lines', 'We hold these truths.']]) {
    const expected = model.run(text);
    const shown = await page.evaluate((i) => {
      const e = document.getElementById(i);
      return { tokens: e.tokens, attention: e.attention.map((l) => l.map((w) => [...w])) };
    }, id);
    expect(shown.tokens).toEqual(expected.tokens);
    let worst = 0;
    for (let l = 0; l < expected.layers; l++) {
      for (let h = 0; h < expected.heads; h++) worst = Math.max(worst, maxDiff(shown.attention[l][h], expected.attention(l, h)));
    }
    expect(worst).toBeLessThan(1e-6);
  }
  const fetched = (suffix, status = 200) => responses.filter((r) => new URL(r.url).pathname.endsWith(suffix) && r.status === status).length;
  // One download of the weights for every element, after the two range requests for its header.
  expect(fetched('model.safetensors')).toBe(1);
  expect(fetched('model.safetensors', 206)).toBe(2);
  expect(fetched('.wasm')).toBe(1);
  expect(await inShadow(page, 'head', '.mh-head-title')).toEqual(['Layer 2, head 3']);
  expect(await inShadow(page, 'head', '.mh-head-queries button')).toEqual(model.run('She gave him the book.').tokens);
  expect(await inShadow(page, 'grid', '.mh-grid-card span')).toEqual(['head 1', 'head 2', 'head 3', 'head 4']);
  expect(problems).toEqual([]);
  await page.close();
});

test('the page\'s CSS does not reach inside, ours does not leak out, and theme and height apply', async () => {
  const { page, problems } = await openHost();
  const styles = await page.evaluate(() => {
    const shadow = (id, s) => getComputedStyle(document.getElementById(id).shadowRoot.querySelector(s));
    return {
      canvas: shadow('grid', 'canvas').display,
      title: shadow('head', '.mh-head-title').color,
      spacing: shadow('grid', '.mh-grid-readout').letterSpacing,
      outsideTitle: getComputedStyle(document.getElementById('outside')).color,
      outsideCardBorder: getComputedStyle(document.getElementById('outside-card')).borderTopStyle,
      lightBackground: getComputedStyle(document.getElementById('grid').shadowRoot.querySelector('.frame')).backgroundColor,
      darkBackground: getComputedStyle(document.getElementById('lines').shadowRoot.querySelector('.frame')).backgroundColor,
      frameHeight: document.getElementById('head').shadowRoot.querySelector('.frame').getBoundingClientRect().height,
    };
  });
  expect(styles.canvas).toBe('block');
  expect(styles.title).not.toBe('rgb(255, 0, 0)');
  expect(styles.spacing).toBe('normal');
  expect(styles.outsideTitle).toBe('rgb(255, 0, 0)');
  expect(styles.outsideCardBorder).toBe('none');
  expect(styles.lightBackground).toBe('rgb(255, 255, 255)');
  expect(styles.darkBackground).toBe('rgb(23, 24, 27)');
  expect(styles.frameHeight).toBe(300);
  expect(problems).toEqual([]);
  await page.close();
});

test('attribute changes redraw, and selections fire tokenselect, cellselect and headselect', async () => {
  const { page, problems } = await openHost();
  const events = await page.evaluate(() => {
    window.__events = [];
    for (const type of ['tokenselect', 'cellselect', 'headselect', 'render']) {
      document.addEventListener(type, (e) => window.__events.push({ type, id: e.target.id, detail: e.detail }));
    }
  });
  expect(events).toBeUndefined();

  // A new sentence, layer and head on the head view.
  const text = 'The nation will not forget.';
  await page.evaluate((t) => {
    const e = document.getElementById('head');
    e.setAttribute('sentence', t);
    e.setAttribute('layer', '1');
    e.setAttribute('head', '4');
  }, text);
  await page.waitForFunction(() => document.getElementById('head').shadowRoot.querySelector('.mh-head-title')?.textContent === 'Layer 1, head 4');
  const expected = model.run(text);
  expect(await inShadow(page, 'head', '.mh-head-queries button')).toEqual(expected.tokens);
  let recorded = await page.evaluate(() => window.__events.filter((e) => e.type === 'render' && e.id === 'head'));
  expect(recorded.at(-1).detail).toMatchObject({ view: 'head', layer: 1, heads: [4], tokens: expected.tokens });

  // Attributes changed together redraw together (no drawing shows some of them), and the sentence
  // may be the element's text. (A resize may redraw again, so drawings are not counted.)
  await page.evaluate(() => {
    window.__events.length = 0;
    const e = document.getElementById('lines');
    e.setAttribute('layer', '3');
    e.setAttribute('head', 'all');
    e.setAttribute('theme', 'light');
    e.textContent = 'Hello there.';
  });
  await page.waitForFunction(() => document.getElementById('lines').tokens?.includes('there'));
  recorded = await page.evaluate(() => window.__events.filter((e) => e.type === 'render'));
  expect(recorded.length).toBeGreaterThan(0);
  expect(new Set(recorded.map((e) => JSON.stringify([e.id, e.detail.layer, e.detail.heads, e.detail.tokens]))))
    .toEqual(new Set([JSON.stringify(['lines', 3, [1, 2, 3, 4], model.run('Hello there.').tokens])]));

  // Clicking cell (row 2, column 1) pins query 2 and selects that cell.
  const canvas = page.locator('#head canvas[role="img"]').first();
  const box = await canvas.boundingBox();
  const n = expected.tokens.length;
  await page.mouse.click(box.x + (1.5 * box.width) / n, box.y + (2.5 * box.height) / n);
  await page.waitForFunction(() => window.__events.some((e) => e.type === 'cellselect'));
  recorded = await page.evaluate(() => window.__events.filter((e) => e.type !== 'render'));
  expect(recorded.map((e) => e.type)).toEqual(['tokenselect', 'cellselect']);
  expect(recorded[0].detail).toEqual({ layer: 1, heads: [4], query: 2, token: expected.tokens[2] });
  const { weight, ...cell } = recorded[1].detail;
  expect(cell).toEqual({ layer: 1, heads: [4], query: 2, key: 1, queryToken: expected.tokens[2], keyToken: expected.tokens[1] });
  expect(weight).toBe(expected.attention(0, 3)[2 * n + 1]);

  // Choosing a head in the grid enlarges it, unless the page cancels the event.
  await page.locator('#grid .mh-grid-card').nth(2).click();
  await page.waitForFunction(() => document.getElementById('grid').getAttribute('view') === 'head');
  expect(await page.evaluate(() => window.__events.find((e) => e.type === 'headselect'))).toEqual(
    { type: 'headselect', id: 'grid', detail: { layer: 1, head: 3 } });
  expect(await page.evaluate(() => document.getElementById('grid').getAttribute('head'))).toBe('3');

  // A page that cancels headselect keeps the grid.
  await page.evaluate(() => {
    const e = document.getElementById('grid');
    e.setAttribute('view', 'grid');
    e.addEventListener('headselect', (event) => event.preventDefault());
  });
  await page.waitForFunction(() => document.getElementById('grid').shadowRoot.querySelector('.mh-grid-card'));
  await page.locator('#grid .mh-grid-card').nth(1).click();
  await page.waitForFunction(() => window.__events.filter((e) => e.type === 'headselect').length === 2);
  expect(await page.evaluate(() => [document.getElementById('grid').getAttribute('view'), document.getElementById('grid').getAttribute('head')]))
    .toEqual(['grid', '3']);
  expect(problems).toEqual([]);
  await page.close();
});

test('bad attributes and HTML in the sentence get a clear message, and the element recovers', async () => {
  const { page, problems } = await openHost();
  const state = (id) => page.evaluate((i) => {
    const e = document.getElementById(i);
    return { state: e.state, status: e.shadowRoot.querySelector('.status').textContent };
  }, id);
  const set = (id, name, value) => page.evaluate(([i, k, v]) => document.getElementById(i).setAttribute(k, v), [id, name, value]);
  const settled = (id, s) => page.waitForFunction(([i, v]) => document.getElementById(i).state === v, [id, s]);

  await page.evaluate(() => document.getElementById('grid').addEventListener('error', (e) => { window.__error = e.detail.message; }));
  await set('grid', 'view', 'bogus');
  await settled('grid', 'error');
  expect(await state('grid')).toEqual({ state: 'error', status: 'multihead: view must be grid, head, lines, steps, why or alignment, got "bogus"' });
  expect(await page.evaluate(() => window.__error)).toBe('view must be grid, head, lines, steps, why or alignment, got "bogus"');
  await set('grid', 'view', 'toString'); // a name every object has is not a view either
  await settled('grid', 'error');
  expect((await state('grid')).status).toBe('multihead: view must be grid, head, lines, steps, why or alignment, got "toString"');
  await set('grid', 'view', 'head');
  await set('grid', 'head', '9');
  await settled('grid', 'error');
  expect((await state('grid')).status).toBe('multihead: head must be a whole number from 1 to 4, a list of them, or "all", got "9"');
  await set('grid', 'head', '1, 2');
  await settled('grid', 'error');
  expect((await state('grid')).status).toBe('multihead: several heads ("1, 2") need view="lines"; the head view shows one');
  await set('grid', 'head', '2');
  await settled('grid', 'ready');
  await set('grid', 'theme', 'blue');
  await settled('grid', 'error');
  expect((await state('grid')).status).toBe('multihead: theme must be light, dark or auto, got "blue"');
  await set('grid', 'theme', 'dark');
  await settled('grid', 'ready');

  await set('grid', 'sentence', '<img src=x onerror="window.__injected=1"> hi');
  await page.waitForFunction(() => document.getElementById('grid').tokens?.includes('<'));
  expect(await page.evaluate(() => [window.__injected, document.getElementById('grid').shadowRoot.querySelector('img')])).toEqual([undefined, null]);
  await set('grid', 'sentence', 'word '.repeat(500));
  await settled('grid', 'error');
  expect((await state('grid')).status).toBe('multihead: sentence has 2500 characters; the element takes at most 2000');
  await set('grid', 'sentence', '   ');
  await settled('grid', 'empty');
  await set('grid', 'model', '/no/such/model');
  await set('grid', 'sentence', 'Hello there.');
  await settled('grid', 'error');
  expect((await state('grid')).status).toMatch(/^multihead: cannot fetch config\.json from .*\/no\/such\/model\/config\.json: HTTP 404$/);
  await set('grid', 'model', 'default');
  await settled('grid', 'ready');
  expect(problems.filter((p) => !p.includes('404'))).toEqual([]);
  await page.close();
});

test('a sentence longer than the model says what is shown: a masked model keeps its closing token, a causal one does not', async () => {
  const { page, problems } = await openHost();
  const shown = async (model, sentence, n) => {
    await page.evaluate(([m, s]) => {
      const e = document.getElementById('grid');
      e.setAttribute('model', m);
      e.setAttribute('sentence', s);
    }, [model, sentence]);
    await page.waitForFunction((length) => {
      const e = document.getElementById('grid');
      return e.state === 'ready' && e.tokens.length === length;
    }, n);
    return page.evaluate(() => {
      const e = document.getElementById('grid');
      return { tokens: e.tokens, status: e.shadowRoot.querySelector('.status').textContent };
    });
  };
  const long = 'the red car and the old bridge . '.repeat(20);
  for (const [name, expected] of [['default', model.run(long)], ['causal', (await engine.loadModel({ builtin: 'causal' })).run(long)]]) {
    const n = expected.tokens.length;
    const kept = expected.causal ? `${n}` : `${n - 1} and the closing [SEP]`;
    expect(expected.truncated).toBe(true);
    expect(await shown(name, long, n)).toEqual({ tokens: expected.tokens,
      status: `This text is longer than the model's ${n} tokens: only the first ${kept} are shown.` });
  }
  expect(problems).toEqual([]);
  await page.close();
});

test('exportJSON, exportSVG and exportPNG give the engine\'s values and the heads on screen', async () => {
  const { page, problems } = await openHost();
  const files = await page.evaluate(async () => {
    const e = document.getElementById('head'); // layer 2, head 3 on screen
    const png = new Uint8Array(await (await e.exportPNG()).arrayBuffer());
    const svg = new DOMParser().parseFromString(e.exportSVG(), 'image/svg+xml');
    return {
      json: JSON.parse(e.exportJSON()),
      png: { signature: [...png.subarray(1, 4)], size: [...png.subarray(16, 24)] },
      svg: { error: svg.querySelector('parsererror') !== null, rects: svg.querySelectorAll('rect').length },
    };
  });
  const expected = model.run('She gave him the book.');
  const n = expected.tokens.length;
  expect(files.json.tokens).toEqual(expected.tokens);
  for (let l = 0; l < expected.layers; l++) {
    for (let h = 0; h < expected.heads; h++) expect(files.json.layers[l].heads[h].flat()).toEqual([...expected.attention(l, h)]);
  }
  expect(String.fromCharCode(...files.png.signature)).toBe('PNG');
  const size = Buffer.from(files.png.size);
  const { width, height } = figureLayout({ n, heads: [2] });
  expect([size.readUInt32BE(0), size.readUInt32BE(4)]).toEqual([width, height]);
  expect(files.svg).toEqual({ error: false, rects: n * n + 1 });
  expect(problems).toEqual([]);
  await page.close();
});

test('view="why" explains a [MASK] with the engine\'s parts, follows position and against, and exports CSV and SVG', async () => {
  const { page, problems } = await openHost();
  const sentence = 'The cat sat on the [MASK].';
  const shown = () => page.evaluate(() => {
    const root = document.getElementById('grid').shadowRoot;
    return {
      state: document.getElementById('grid').state,
      heads: [...root.querySelectorAll('.mh-why-heads .mh-why-map button[data-layer][data-head]')].map((b) => Number(b.dataset.value)),
      sentence: root.querySelector('.mh-why-heads .mh-why-sentence')?.textContent ?? '',
    };
  });
  await page.evaluate((text) => {
    const e = document.getElementById('grid');
    e.setAttribute('sentence', text);
    e.setAttribute('view', 'why');
  }, sentence);
  await page.waitForFunction(() => document.getElementById('grid').shadowRoot.querySelector('.mh-why-heads button[data-head]') !== null);
  const run = model.run(sentence);
  const mask = run.tokens.indexOf('[MASK]');
  expect(maxDiff((await shown()).heads, run.contributions(mask).heads.flatMap((h) => Array.from(h)))).toBeLessThan(1e-4);

  // Position 3 (counted from 1) against "cat": the logit difference there.
  await page.evaluate(() => {
    const e = document.getElementById('grid');
    e.setAttribute('position', '3');
    e.setAttribute('against', 'cat');
  });
  await page.waitForFunction(() => document.getElementById('grid').shadowRoot.querySelector('.mh-why-heads .mh-why-sentence')?.textContent.includes('cat'));
  const difference = run.contributions(2, { against: 'cat' });
  expect(maxDiff((await shown()).heads, difference.heads.flatMap((h) => Array.from(h)))).toBeLessThan(1e-4);
  const files = await page.evaluate(() => {
    const e = document.getElementById('grid');
    const svg = new DOMParser().parseFromString(e.exportSVG(), 'image/svg+xml');
    return { csv: e.exportCSV(), error: svg.querySelector('parsererror') !== null, cells: svg.querySelectorAll('rect.why-heads').length };
  });
  expect(files).toMatchObject({ error: false, cells: model.numLayers * model.numHeads });
  expect(files.csv).toContain(String(difference.heads[0][0]).slice(0, 8));

  // A token that is two is the element's error, and it recovers when the attribute goes.
  await page.evaluate(() => document.getElementById('grid').setAttribute('against', 'the cat'));
  await page.waitForFunction(() => document.getElementById('grid').state === 'error');
  await page.evaluate(() => document.getElementById('grid').removeAttribute('against'));
  await page.waitForFunction(() => document.getElementById('grid').state === 'ready');
  expect(problems).toEqual([]);
  await page.close();
});
