// loadEngine({ threads }): the threaded build runs every model and layer to the same bits as one
// thread, says how many threads it got, refuses bad counts, keeps working after an error inside a
// split step, and never keeps Node running. (The page's threads are tested in tests/e2e/page.test.js.)
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { randomValues } from '../helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHECKPOINTS = join(ROOT, 'tests/fixtures/checkpoints');
const SOURCES = [undefined, { builtin: 'causal' }, ...['bert-plain', 'distilbert', 'roberta', 'gpt2-new'].map((name) => join(CHECKPOINTS, name))];
// Long enough that every step of the built-in models is split between threads.
const TEXT = 'When Mary and John went to the store, John gave a drink to Mary because she was thirsty after the long walk home. ';

// The build loadEngine() picks (relaxed SIMD, as Jest runs), and the plain SIMD build's pair.
let one, three, plainOne, plainThree;
beforeAll(async () => {
  [one, three, plainOne, plainThree] = await Promise.all([loadEngine({ threads: 1 }), loadEngine({ threads: 3 }),
    loadEngine({ threads: 1, relaxedSimd: false }), loadEngine({ threads: 3, relaxedSimd: false })]);
});
afterAll(() => {
  for (const engine of [one, three, plainOne, plainThree]) engine.dispose();
});

function expectSameBits(a, b, what) {
  expect(b.length).toBe(a.length);
  const first = a.findIndex((v, i) => !Object.is(v, b[i]));
  expect({ what, first }).toEqual({ what, first: -1 });
}

test('an engine says how many threads it got: one per core by default, as asked, one for the scalar build', async () => {
  expect(one.threads).toBe(1);
  expect(three.threads).toBe(3);
  expect([one.threadsError, three.threadsError]).toEqual([null, null]);
  const byDefault = await loadEngine();
  expect(byDefault.threads).toBe(globalThis.navigator?.hardwareConcurrency ?? availableParallelism());
  byDefault.dispose();
  const scalar = await loadEngine({ simd: false, threads: 4 });
  expect(scalar.threads).toBe(1);
  expect(scalar.threadsError).toBeNull(); // not a failure: the scalar build has no threads to load
  scalar.dispose();
});

// A WASM thread starts on its own time and allocates as it starts. loadEngine() used to resolve
// before the workers ran, so the heap's use grew by 56 bytes a few milliseconds (or, on a busy
// machine, much longer) later: a leak soak that read usedBytes before and after failed by that much.
test('the threads have started when loadEngine resolves: the heap in use holds still after it', async () => {
  const reads = [];
  for (let i = 0; i < 6; i++) {
    const engine = await loadEngine({ threads: 3, relaxedSimd: i % 2 === 0 });
    const first = engine.memory().usedBytes;
    await new Promise((resolve) => setTimeout(resolve, 30));
    reads.push([first, engine.memory().usedBytes]);
    engine.dispose();
  }
  expect(reads.filter(([first, later]) => first !== later)).toEqual([]);
});

test.each([0, -1, 1.5, 65, NaN, '2', null])('threads %p is refused with a message naming it', async (threads) => {
  await expect(loadEngine({ threads })).rejects.toThrow(/threads/);
});

test('an unknown loadEngine option is refused by name', async () => {
  await expect(loadEngine({ thread: 2 })).rejects.toThrow('loadEngine has no option thread; its options are simd, relaxedSimd and threads');
});

test.each(SOURCES.map((s) => [s === undefined ? 'default' : s.builtin ?? s.split('/').pop(), s]))(
  '%s: three threads give the same attention, hidden states and logits as one, to the bit', async (_, source) => {
    const [a, b] = await Promise.all([one.loadModel(source), three.loadModel(source)]);
    const text = TEXT.repeat(4);
    for (const options of [{}, { ablate: [{ layer: 0, head: 1 }], ablation: 'mean' }]) {
      const ra = a.run(text, options), rb = b.run(text, options);
      expect(rb.ids).toEqual(ra.ids);
      for (let l = 0; l < ra.layers; l++) {
        for (let h = 0; h < ra.heads; h++) expectSameBits(ra.attention(l, h), rb.attention(l, h), `layer ${l} head ${h}`);
        expectSameBits(ra.trace(l).output(), rb.trace(l).output(), `layer ${l} trace`);
      }
      expectSameBits(ra.hidden, rb.hidden, 'hidden');
      if (ra.hasLmHead) expectSameBits(ra.logits(3), rb.logits(3), 'logits');
    }
    a.dispose();
    b.dispose();
  });

test.each(['relaxed-simd', 'simd'])('the %s build: a BERT-base-sized layer gives the same bits at three threads as at one, with and without its trace', (build) => {
  const engines = build === 'simd' ? [plainOne, plainThree] : [one, three];
  expect(engines.map((e) => e.build)).toEqual([build, build]);
  const [la, lb] = engines.map((e) => e.createAttention({ dModel: 768, numHeads: 12, seed: 5 }));
  for (const n of [7, 100, 300]) {
    const x = randomValues(n * 768, n);
    const ta = la.forward(x, n), tb = lb.forward(x, n);
    for (let h = 0; h < 12; h++) expectSameBits(ta.weights(h), tb.weights(h), `${n} tokens head ${h}`);
    expectSameBits(ta.output(), tb.output(), `${n} tokens output`);
    expectSameBits(la.output(x, n), lb.output(x, n), `${n} tokens, no trace`);
  }
  la.dispose();
  lb.dispose();
});

test('an overflow inside a split step names the same head at any thread count, and the engine goes on', () => {
  const n = 200;
  const x = randomValues(n * 768, 1).map((v) => v * 1e20);
  const messages = [one, three].map((engine) => {
    const layer = engine.createAttention({ dModel: 768, numHeads: 12, seed: 9 });
    let message = null;
    try {
      layer.forward(x, n);
    } catch (error) {
      message = error.message;
    }
    const fine = layer.forward(randomValues(n * 768, 2), n);
    expect(fine.weights(11).every(Number.isFinite)).toBe(true);
    layer.dispose();
    return message;
  });
  expect(messages[0]).toMatch(/^attention: the (queries|scores) of head \d+ overflowed float32/);
  expect(messages[1]).toBe(messages[0]);
});

test('Node exits after a threaded run whether or not the engine was disposed', async () => {
  const script = (dispose) => `
    import { loadEngine } from ${JSON.stringify(join(ROOT, 'web/src/index.js'))};
    const engine = await loadEngine({ threads: 2 });
    const model = await engine.loadModel();
    console.log(engine.threads, model.run('the threads sleep between passes').ids.length);
    ${dispose ? 'engine.dispose();' : ''}`;
  for (const dispose of [false, true]) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', script(dispose)], { timeout: 30000 });
    expect(stdout.trim()).toMatch(/^2 \d+$/);
  }
});
