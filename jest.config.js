// Jest runs the package as native ES modules (no transform), and the relaxed-SIMD build, which
// Node 20 runs only with --experimental-wasm-relaxed-simd. Node refuses that flag in NODE_OPTIONS,
// so `npm run jest -- [files]` (which `npm test` runs) starts Jest under `node` with it; Jest's
// workers inherit it.
//
// npm test runs a second pass as on a one-core machine (MULTIHEAD_ONE_CORE=1, tests/js/one-core.js):
// there loadEngine() picks the single-threaded relaxed-SIMD build, whose memory is not shared (views detach
// as it grows) and which starts no worker. Only the suites whose behaviour depends on that run
// again: the thread counts themselves, the numbers of every build against PyTorch, the errors, and
// WASM memory as it grows and is freed. The rest do not depend on the core count (threads.test.js
// shows every result is the same bits at any thread count).
if (!process.execArgv.includes('--experimental-wasm-relaxed-simd')) {
  throw new Error('The tests run the relaxed-SIMD build, which needs Node\'s --experimental-wasm-relaxed-simd: run them with `npm run jest -- [files]`');
}

const ONE_CORE_SUITES = [
  'engine/threads', 'engine/attention', 'engine/fixtures', 'engine/errors', 'engine/memory', 'model/model-fixtures', 'model/checkpoints',
  'hostile/leaks', 'hostile/stale-views',
];

export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: process.env.MULTIHEAD_ONE_CORE
    ? ONE_CORE_SUITES.map((name) => `<rootDir>/tests/js/${name}.test.js`)
    : ['<rootDir>/tests/js/**/*.test.js', '<rootDir>/tests/e2e/**/*.test.js'],
  testTimeout: 60000,
  // A test file per core, not Jest's default of one fewer: on CI's two cores that is two at once,
  // not one. Most e2e time is spent waiting on Chromium, so this cut the whole run from 590 s to
  // 428 s here, and no test times anything.
  maxWorkers: '100%',
  setupFiles: process.env.MULTIHEAD_ONE_CORE ? ['<rootDir>/tests/js/one-core.js'] : [],
  // The page, built once for every e2e test (tests/e2e/global-setup.js).
  globalSetup: process.env.MULTIHEAD_ONE_CORE ? undefined : '<rootDir>/tests/e2e/global-setup.js',
};
