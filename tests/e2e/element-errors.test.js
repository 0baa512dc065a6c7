// <multihead-view>'s error event, in the hostile host page (tests/e2e/pages/element.html): one
// event per distinct problem however often the element redraws, and heights it cannot honestly
// draw refused by name.
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
let browser, server;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchBrowser(), startServer({ root: REPO })]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.close()]);
});

/** The host page with every element drawn, and a record of each element's error events. */
async function openHost() {
  const opened = await browser.open(`${server.url}tests/e2e/pages/element.html`);
  await opened.page.waitForFunction(() => [...document.querySelectorAll('multihead-view')].every((e) => e.state === 'ready'),
    null, { timeout: 30000 }).catch((error) => { throw new Error(`${error.message}; problems: ${opened.problems.join('; ') || 'none'}`); });
  await opened.page.evaluate(() => {
    window.__errors = [];
    for (const e of document.querySelectorAll('multihead-view')) {
      e.addEventListener('error', (event) => window.__errors.push([e.id, event.detail.message]));
    }
  });
  return opened;
}

/** Sets attributes of element `id`, waits for its state, then for anything a redraw would fire. */
async function settle(page, id, attributes, state) {
  await page.evaluate(([i, a]) => {
    for (const [name, value] of Object.entries(a)) document.getElementById(i).setAttribute(name, value);
  }, [id, attributes]);
  await page.waitForFunction(([i, s]) => document.getElementById(i).state === s, [id, state], { timeout: 10000 });
  // Several frames: a ResizeObserver callback runs after layout, and may draw (and fail) again.
  for (let k = 0; k < 5; k++) await page.evaluate(() => new Promise((done) => requestAnimationFrame(done)));
  return page.evaluate(() => window.__errors.splice(0));
}

const BAD = [
  [{ view: 'bogus' }, 'view must be grid, head, lines, steps, why or alignment, got "bogus"'],
  [{ layer: '9' }, 'layer must be a whole number from 1 to 4, got "9"'],
  [{ height: 'bogus' }, 'height must be a CSS length such as 400 or 30em, got "bogus"'],
];

test('an element added with a bad view, layer or height fires error once', async () => {
  const { page, problems } = await openHost();
  for (const [attributes, message] of BAD) {
    await page.evaluate((a) => {
      const e = document.createElement('multihead-view');
      e.id = 'added';
      e.setAttribute('sentence', 'The cat sat on the mat.');
      for (const [name, value] of Object.entries(a)) e.setAttribute(name, value);
      e.addEventListener('error', (event) => window.__errors.push([e.id, event.detail.message]));
      document.body.append(e);
    }, attributes);
    expect(await settle(page, 'added', {}, 'error')).toEqual([['added', message]]);
    await page.evaluate(() => document.getElementById('added').remove());
  }
  expect(problems).toEqual([]);
  await page.close();
});

test('a bad attribute set later fires error once, and a resize does not fire it again', async () => {
  const { page, problems } = await openHost();
  const status = (id) => page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.status').textContent, id);
  for (const [attributes, message] of BAD) {
    expect(await settle(page, 'grid', attributes, 'error')).toEqual([['grid', message]]);
    expect(await status('grid')).toBe(`multihead: ${message}`);
    // A resize redraws the element; the same problem is not reported again.
    await page.evaluate(() => { document.getElementById('grid').style.width = '600px'; });
    expect(await settle(page, 'grid', {}, 'error')).toEqual([]);
    await page.evaluate(() => { document.getElementById('grid').style.width = ''; });
    expect(await settle(page, 'grid', { view: 'grid', layer: '1', height: '300' }, 'ready')).toEqual([]);
  }

  // Another problem while one is shown is a new event; the same one again after a recovery too.
  expect(await settle(page, 'grid', { view: 'bogus' }, 'error')).toHaveLength(1);
  expect(await settle(page, 'grid', { view: 'toString' }, 'error')).toEqual([['grid', 'view must be grid, head, lines, steps, why or alignment, got "toString"']]);
  expect(await settle(page, 'grid', { sentence: 'Other words.' }, 'error')).toEqual([]);
  expect(await settle(page, 'grid', { view: 'grid' }, 'ready')).toEqual([]);
  expect(await settle(page, 'grid', { view: 'toString' }, 'error')).toHaveLength(1);
  expect(problems).toEqual([]);
  await page.close();
});

test('a height of 1e20 pixels is refused by name, and reasonable heights still apply', async () => {
  const { page, problems } = await openHost();
  const frameHeight = () => page.evaluate(() => document.getElementById('head').shadowRoot.querySelector('.frame').getBoundingClientRect().height);
  for (const value of ['99999999999999999999', '99999999999999999999px', '1e9px', '100001']) {
    expect(await settle(page, 'head', { height: value }, 'error')).toEqual([['head',
      `height must be at most 100000 pixels (a number, or a CSS length such as 30em), got "${value}"`]]);
    expect(await settle(page, 'head', { height: '300' }, 'ready')).toEqual([]);
  }
  for (const [value, pixels] of [['250', 250], ['250.5px', 250.5], ['1e3px', 1000], ['20em', 280]]) {
    expect(await settle(page, 'head', { height: value }, 'ready')).toEqual([]);
    expect(await frameHeight()).toBe(pixels);
  }
  expect(problems).toEqual([]);
  await page.close();
});

test('a height the page cannot resolve yet (inside a hidden parent) is not mistaken for one too tall', async () => {
  const { page, problems } = await openHost();
  await page.evaluate(() => {
    const hidden = document.createElement('div');
    hidden.style.display = 'none';
    hidden.innerHTML = '<multihead-view id="hidden" sentence="The cat sat." height="fit-content"></multihead-view>';
    document.body.append(hidden);
    hidden.firstChild.addEventListener('error', (event) => window.__errors.push(['hidden', event.detail.message]));
  });
  expect(await settle(page, 'hidden', { height: '20em' }, 'ready')).toEqual([]);
  expect(await settle(page, 'hidden', { height: '100001' }, 'error')).toEqual([['hidden',
    'height must be at most 100000 pixels (a number, or a CSS length such as 30em), got "100001"']]);
  expect(problems).toEqual([]);
  await page.close();
});
