// Loads the package the ways a user would, in headless Chromium: as plain ES modules in a page and
// in a module worker, and from a Vite production bundle. For every WASM build, each must compute
// what the same code computes in this Node process. One browser and one vite build per run.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { launchBrowser, servedBy } from './browser.js';
import { MODEL_SENTENCE, runCase, runModel } from './pages/compute.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
// [name, the build engine.build reports and the pages' ?build=, threads asked, its .wasm]: the served
// pages are cross-origin isolated, so the threaded builds load where more than one thread is asked for.
const BUILDS = [['relaxed SIMD', 'relaxed-simd', 1, 'relaxed'], ['SIMD', 'simd', 1, 'simd'], ['scalar', 'scalar', 1, 'scalar'],
  ['relaxed SIMD with 2 threads', 'relaxed-simd', 2, 'relaxed-threads'], ['SIMD with 2 threads', 'simd', 2, 'simd-threads']];

// What a careful host allows: its own scripts, WebAssembly, the blob: workers of the threaded build,
// and the test page's data: icon.
const NO_EVAL = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; img-src data:";

let browser, repoServer, bundleServer, bundleDir, buildLog;

beforeAll(async () => {
  // Outside the repository, so a test run leaves no build output behind.
  bundleDir = await mkdtemp(join(tmpdir(), 'multihead-bundle-'));
  // A child process: rolldown's native binding does not work inside Jest's sandbox (see vite-build.js).
  const { stderr } = await promisify(execFile)(process.execPath,
    [fileURLToPath(new URL('./vite-build.js', import.meta.url)), fileURLToPath(new URL('./bundle/vite.config.js', import.meta.url)), bundleDir]);
  buildLog = stderr;
  [browser, repoServer, bundleServer] = await Promise.all([
    launchBrowser(), startServer({ root: REPO }), startServer({ root: bundleDir }),
  ]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), repoServer?.close(), bundleServer?.close()]);
  await rm(bundleDir, { recursive: true, force: true });
});

/** Every number runCase() publishes agrees with Node's to 1e-6 (they should be bit-identical). */
function expectSameAttention(actual, expected) {
  expect(actual.build).toBe(expected.build);
  expect(actual.outputSum).toBeCloseTo(expected.outputSum, 6);
  for (const key of ['rowSums', 'weights', 'output']) {
    expect(actual[key]).toHaveLength(expected[key].length);
    expect(maxAbsDiff(actual[key], expected[key])).toBeLessThan(1e-6);
  }
}

function maxAbsDiff(a, b) {
  return a.reduce((max, value, i) => Math.max(max, Math.abs(value - b[i])), 0);
}

/** The WASM files a page fetched, as [path, status, content type]. */
function wasmFetches(responses) {
  return responses.filter((r) => r.url.endsWith('.wasm')).map((r) => [new URL(r.url).pathname, r.status, r.type]);
}

describe.each(BUILDS)('the %s build', (_, build, threads, wasm) => {
  let expected;
  beforeAll(async () => { expected = await runCase(loadEngine, build, threads); });

  test('is the one Node loads when asked, and its attention rows sum to 1', () => {
    expect(expected.build).toBe(build);
    expect(expected.threads).toBe(threads);
    for (const sum of expected.rowSums) expect(sum).toBeCloseTo(1, 5);
  });

  test('computes the same attention in a page, a worker and a Node process', async () => {
    const run = await browser.run(`${repoServer.url}tests/e2e/pages/load.html?build=${build}&threads=${threads}`, `page-${wasm}`);
    expect(run.error).toBeUndefined();
    expect(run.problems).toEqual([]);
    expect(run.result.workerScope).toBe('DedicatedWorkerGlobalScope');
    expectSameAttention(run.result.page, expected);
    expectSameAttention(run.result.worker, expected);
    // Once for the page, once for the worker, straight from dist/.
    expect([run.result.page.threads, run.result.worker.threads]).toEqual([threads, threads]);
    const fetched = [`/dist/multihead-${wasm}.wasm`, 200, 'application/wasm'];
    expect(wasmFetches(run.responses)).toEqual([fetched, fetched]);
  });

  test('computes the same attention under a Content-Security-Policy that forbids eval', async () => {
    // 'wasm-unsafe-eval' lets WebAssembly compile and nothing else: the engine's JavaScript must
    // not make code from strings (embind does, unless built with DYNAMIC_EXECUTION=0).
    const strict = await startServer({ root: REPO, headers: { 'Content-Security-Policy': NO_EVAL } });
    try {
      const run = await browser.run(`${strict.url}tests/e2e/pages/load.html?build=${build}&threads=${threads}`, `csp-no-eval-${wasm}`);
      expect(run.error).toBeUndefined();
      expect(run.problems).toEqual([]);
      expectSameAttention(run.result.page, expected);
      expectSameAttention(run.result.worker, expected);
      expect([run.result.page.threads, run.result.worker.threads]).toEqual([threads, threads]);
    } finally {
      await strict.close();
    }
  });

  test('computes the same attention from a Vite production bundle', async () => {
    const run = await browser.run(`${bundleServer.url}?build=${build}&threads=${threads}`, `bundle-${wasm}`);
    expect(run.error).toBeUndefined();
    expect(run.problems).toEqual([]);
    expectSameAttention(run.result.page, expected);
    expect(run.result.page.threads).toBe(threads);
    // The glue's new URL('multihead-<build>.wasm', import.meta.url) was rewritten to the hashed asset.
    expect(wasmFetches(run.responses)).toEqual([
      [expect.stringMatching(new RegExp(`^/assets/multihead-${wasm}-[\\w-]{8}\\.wasm$`)), 200, 'application/wasm'],
    ]);
  });
});

test('where a Content-Security-Policy forbids blob: workers, the engine runs on one thread and says why', async () => {
  const expected = await runCase(loadEngine, undefined, 2);
  const strict = await startServer({ root: REPO, headers: { 'Content-Security-Policy': "worker-src 'self'" } });
  try {
    const run = await browser.run(`${strict.url}tests/e2e/pages/load.html?threads=2`, 'csp-no-blob-workers');
    expect(run.error).toBeUndefined();
    for (const where of ['page', 'worker']) {
      expect(run.result[where]).toMatchObject({ threads: 1, threadsError: expect.stringMatching(/could not start the threaded build's workers/) });
      expectSameAttention(run.result[where], expected);
    }
    // The browser reports the blocked worker of the page's pool (the worker's console is its own).
    expect(run.problems).toEqual([expect.stringMatching(/blob:.*violates .*worker-src/)]);
  } finally {
    await strict.close();
  }
});

test('the default model runs in a page from the package\'s own files, as in Node', async () => {
  const expected = await runModel(loadEngine, MODEL_SENTENCE);
  const run = await browser.run(`${repoServer.url}tests/e2e/pages/model.html`, 'model');
  expect(run.error).toBeUndefined();
  expect(run.problems).toEqual([]);
  expect(run.result.tokens).toEqual(expected.tokens);
  expect(run.result.ids).toEqual(expected.ids);
  expect(maxAbsDiff(run.result.attention, expected.attention)).toBeLessThan(1e-6);
  expect(maxAbsDiff(run.result.hidden, expected.hidden)).toBeLessThan(1e-5);
  // Everything came from the local server: nothing else is needed, so it works offline.
  expect(run.responses.filter((r) => !servedBy(r.url, repoServer.url))).toEqual([]);
  expect(run.responses.map((r) => new URL(r.url).pathname)).toContain('/web/models/default/model.safetensors');
});

test('the Vite build emits the five WASM builds as hashed assets, byte for byte, without warnings', async () => {
  expect(buildLog).toBe('');
  const assets = await readdir(join(bundleDir, 'assets'));
  for (const build of ['relaxed', 'simd', 'scalar', 'relaxed-threads', 'simd-threads']) {
    const emitted = assets.filter((f) => new RegExp(`^multihead-${build}-[\\w-]{8}\\.wasm$`).test(f));
    expect(emitted).toHaveLength(1);
    const [bytes, original] = await Promise.all([
      readFile(join(bundleDir, 'assets', emitted[0])), readFile(join(REPO, `dist/multihead-${build}.wasm`)),
    ]);
    expect(bytes.equals(original)).toBe(true);
  }
});
