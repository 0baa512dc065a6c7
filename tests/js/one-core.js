// Jest setup for `npm test`'s second pass over tests/js (MULTIHEAD_ONE_CORE=1): the engine sees a
// one-core machine, so every loadEngine() without a thread count runs the single-threaded SIMD
// build, as it does where threads are unavailable. Only this test context's navigator changes.
globalThis.navigator = { hardwareConcurrency: 1 };
