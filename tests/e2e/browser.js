// Headless Chromium for the e2e tests: Debian's /usr/bin/chromium driven by playwright-core.
// One browser per test file, with a fresh profile that close() removes. Each run() opens a page,
// waits for it to publish window.__done or window.__error, and saves a screenshot; open() hands a
// page to a test that drives it itself, recording the same problems.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const SCREENSHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url)); // git-ignored
/** The page as `npm start` builds it, built once for every test by global-setup.js. */
export const PAGE_DIR = fileURLToPath(new URL('../../build/demo/', import.meta.url));
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Starts Chromium. Resolves to { run(url, name), close() }. */
export async function launchBrowser() {
  // Playwright refuses --user-data-dir in args: the profile directory is passed this way instead.
  const profile = await mkdtemp(join(tmpdir(), 'multihead-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS,
    });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    run: (url, name) => run(context, url, name),
    open: (url, options) => open(context, url, options),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Loads `url` and waits for the page to finish. Resolves to { result, error, problems, responses }:
 * window.__result and window.__error, every console error, uncaught page error and failed
 * request (tests expect none), and the { url, status, type } of every response.
 * Saves screenshots/<name>.png.
 */
async function run(context, url, name, timeout = 30000) {
  const page = await context.newPage();
  const { problems, responses } = watch(page);
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__done || window.__error, null, { timeout }).catch((error) => {
      throw new Error(`${url} set neither window.__done nor window.__error (${error.message}); ` +
        `problems: ${problems.join('; ') || 'none'}`);
    });
    const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
    await screenshot(page, name);
    return { result, error, problems, responses };
  } finally {
    await page.close();
  }
}

/**
 * Opens `url` in a new page of the given viewport and colour scheme. Resolves to { page, problems,
 * responses } as run() records them; the caller closes the page.
 */
async function open(context, url, { width = 1100, height = 900, colorScheme = 'light' } = {}) {
  const page = await context.newPage();
  const watched = watch(page);
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme });
  await page.goto(url);
  return { page, ...watched };
}

/**
 * browser.open(url, options), then waits until `ready()` holds in the page; a timeout says what
 * problems the page had meanwhile.
 */
export async function openWhen(browser, url, ready, options) {
  const opened = await browser.open(url, options);
  await opened.page.waitForFunction(ready, null, { timeout: 30000 })
    .catch((error) => { throw new Error(`${error.message}; problems: ${opened.problems.join('; ') || 'none'}`); });
  return opened;
}

/**
 * Whether a response came from the server at `origin`. A blob: URL the page made counts as its
 * origin's: the threaded engine starts its workers from one.
 */
export function servedBy(url, origin) {
  return url.replace(/^blob:/, '').startsWith(origin);
}

/** Saves a full-page screenshot as screenshots/<name>.png. */
export async function screenshot(page, name) {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]')); // a grid drawing in slices
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

function watch(page) {
  const problems = [];
  const responses = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  const answered = new Set(); // requests whose response arrived
  page.on('requestfailed', (request) => {
    // Chromium 156 reports a fetch whose body was read through a stream reader (or pipeTo) to its
    // very end as aborted in about a third of cases (5 to 16 of 30 here; 0 of 30 read with
    // arrayBuffer()), after the whole body has arrived. The weights are streamed that way, so an
    // abort after the response is not a problem; the loader itself refuses a body that is short.
    if (request.failure()?.errorText === 'net::ERR_ABORTED' && answered.has(request)) return;
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  page.on('response', (response) => {
    answered.add(response.request());
    responses.push({ url: response.url(), status: response.status(), type: response.headers()['content-type'] });
  });
  return { problems, responses };
}
