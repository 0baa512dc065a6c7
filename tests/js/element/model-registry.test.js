// The models <multihead-view> elements share (web/src/element/model-registry.js), with a fake
// engine: one load per source whoever asks, a model freed only once no element has used it for
// the release delay, a download nobody waits for stopped, and an engine that failed to load tried again.
import { createModelRegistry } from '../../../web/src/element/model-registry.js';

const wait = (ms) => new Promise((done) => setTimeout(done, ms));

function fakeEngine() {
  const loads = [];
  const engine = {
    loadModel: (source, { signal }) => {
      const model = { source, disposed: false, dispose() { this.disposed = true; } };
      loads.push({ source, signal, model });
      return Promise.resolve(model);
    },
  };
  return { engine, loads };
}

test('elements naming the same model share one load; another model is loaded on its own', async () => {
  const { engine, loads } = fakeEngine();
  let engines = 0;
  const registry = createModelRegistry({ loadEngine: async () => { engines++; return engine; }, releaseMs: 20 });
  const [a, b] = await Promise.all([registry.acquire({ builtin: 'default' }, 'first'), registry.acquire({ builtin: 'default' }, 'second')]);
  expect(a).toBe(b);
  await registry.acquire({ hub: 'gpt2', hubUrl: 'https://huggingface.co' }, 'third');
  expect(loads.map((l) => l.source)).toEqual([{ builtin: 'default' }, 'gpt2']);
  expect(engines).toBe(1);
  expect(registry.size()).toBe(2);
});

test('a model is freed once no element has used it for the release delay, not before', async () => {
  const { engine, loads } = fakeEngine();
  const registry = createModelRegistry({ loadEngine: async () => engine, releaseMs: 30 });
  const model = await registry.acquire({ builtin: 'causal' }, 'element');
  registry.release('element');
  await wait(10);
  expect(await registry.acquire({ builtin: 'causal' }, 'element')).toBe(model); // moved in the page: kept
  registry.release('element');
  await wait(60);
  expect(model.disposed).toBe(true);
  expect(loads[0].signal.aborted).toBe(true);
  expect(registry.size()).toBe(0);
});

test('an element that asks for another model releases its previous one', async () => {
  const { engine } = fakeEngine();
  const registry = createModelRegistry({ loadEngine: async () => engine, releaseMs: 10 });
  const first = await registry.acquire({ builtin: 'default' }, 'element');
  await registry.acquire({ builtin: 'causal' }, 'element');
  await wait(40);
  expect(first.disposed).toBe(true);
  expect(registry.size()).toBe(1);
});

test('an engine that failed to load is tried again by the next request', async () => {
  const { engine } = fakeEngine();
  let attempts = 0;
  const registry = createModelRegistry({ loadEngine: async () => { if (++attempts === 1) throw new Error('no WASM'); return engine; }, releaseMs: 10 });
  await expect(registry.acquire({ builtin: 'default' }, 'a')).rejects.toThrow('no WASM');
  expect(registry.size()).toBe(0);
  await expect(registry.acquire({ builtin: 'default' }, 'a')).resolves.toMatchObject({ source: { builtin: 'default' } });
  expect(attempts).toBe(2);
});
