// run({ interrupt }): a shared Int32Array another thread sets to stop a run between two layers, as
// the page's worker is told the reader has typed on. The run throws an AbortError, and the model
// and the engine's memory are as before: the next run gives the same numbers, and nothing leaks.
import { Worker } from 'node:worker_threads';
import { loadEngine } from '../../../web/src/index.js';
import { maxAbsDiff } from '../helpers.js';
import { TINY, safetensorsBytes, tinyConfig, tinyTensors, tinyTokenizer } from '../tiny-model.js';

// Big enough that a run takes 100 ms or more: the other thread sets the flag well before the end.
const SIZES = { d: 128, heads: 4, layers: 8, ff: 512, positions: 512 };
const TEXT = Array.from({ length: 400 }, (_, i) => TINY.vocab[5 + (i % 7)]).join(' ');

// A thread that waits until shared[1] is set (the run has started), sleeps `delay` ms, then sets
// shared[0]: at 0 the run stops before its first layer (tokenizing takes a few ms), later mid-run.
const INTERRUPTER = `
const { workerData: { shared, delay } } = require('node:worker_threads');
while (Atomics.load(shared, 1) === 0);
Atomics.wait(shared, 2, 0, delay);
Atomics.store(shared, 0, 1);
`;

let engine, model, expected;
beforeAll(async () => {
  engine = await loadEngine();
  const { d, heads, layers, ff, positions } = SIZES;
  const config = tinyConfig({ hidden_size: d, num_attention_heads: heads, num_hidden_layers: layers, intermediate_size: ff, max_position_embeddings: positions });
  model = await engine.loadModel({ config, tokenizer: tinyTokenizer(), weights: safetensorsBytes(tinyTensors(SIZES)) });
  expected = model.run(TEXT);
});
afterAll(() => engine.dispose());

const interrupted = { name: 'AbortError', message: 'the run was interrupted' };

test('a run whose interrupt is set from another thread stops between layers; the next runs as before, and nothing leaks', async () => {
  expect(expected.tokens.length).toBeGreaterThan(400);
  const before = engine.memory().usedBytes;
  for (const delay of [0, 10, 20, 30, 40]) {
    const shared = new Int32Array(new SharedArrayBuffer(12));
    const thread = new Worker(INTERRUPTER, { eval: true, workerData: { shared, delay } });
    await new Promise((resolve) => thread.once('online', resolve));
    Atomics.store(shared, 1, 1);
    let error = null;
    try {
      model.run(TEXT, { interrupt: shared });
    } catch (caught) {
      error = caught;
    }
    await thread.terminate();
    expect(error).toMatchObject(interrupted);
  }
  expect(engine.memory().usedBytes).toBe(before);
  const again = model.run(TEXT);
  expect(maxAbsDiff(again.hidden, expected.hidden)).toBe(0);
  expect(maxAbsDiff(again.attention(SIZES.layers - 1, 0), expected.attention(SIZES.layers - 1, 0))).toBe(0);
});

test('an interrupt already set stops the run before its first layer; one left at 0 changes nothing', () => {
  expect(() => model.run(TEXT, { interrupt: Int32Array.of(7) })).toThrow(expect.objectContaining(interrupted));
  const run = model.run(TEXT, { interrupt: new Int32Array(new SharedArrayBuffer(4)) });
  expect(maxAbsDiff(run.hidden, expected.hidden)).toBe(0);
});

test.each([[new Float32Array(1)], [[0]], [new Int32Array(0)], [new SharedArrayBuffer(4)]])('interrupt %p is refused by name', (interrupt) => {
  expect(() => model.run('the cat', { interrupt })).toThrow(/^interrupt must be an Int32Array/);
});
