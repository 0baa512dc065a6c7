// The ways a model arrives without the Hub: the built-in model by name, a browser's local files
// (File and Blob objects, which Node 20 has too, read in slices), a folder as a file: URL, and bytes
// in memory. Each must compute exactly what the same checkpoint's folder path computes.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const SENTENCE = 'The cat sat on the mat near the door.';
const read = (checkpoint, file) => readFileSync(`${DIR}${checkpoint}/${file}`);

let engine;
beforeAll(async () => { engine = await loadEngine(); });
afterAll(() => engine.dispose());

async function expectSameAsFolder(checkpoint, source) {
  const [model, reference] = await Promise.all([engine.loadModel(source), engine.loadModel(`${DIR}${checkpoint}`)]);
  const a = model.run(SENTENCE), b = reference.run(SENTENCE);
  expect(Array.from(a.ids)).toEqual(Array.from(b.ids));
  for (let l = 0; l < a.layers; l++) expect(a.attention(l, a.heads - 1)).toEqual(b.attention(l, b.heads - 1));
  model.dispose();
  reference.dispose();
}

test.each(['roberta', 'gpt2-new'])('%s from File objects, as a directory picker or a drop gives them', async (checkpoint) => {
  const file = (name, type) => new File([read(checkpoint, name)], name, { type });
  await expectSameAsFolder(checkpoint, {
    config: file('config.json', 'application/json'),
    tokenizer: file('tokenizer.json', 'application/json'),
    weights: file('model.safetensors', 'application/octet-stream'),
  });
});

test('a Blob is read in slices of at most 4 MiB, never whole by one arrayBuffer()', async () => {
  const blob = new Blob([read('bert-12x12', 'model.safetensors')]);
  const slices = [];
  const original = blob.slice.bind(blob);
  blob.slice = (start, end) => { slices.push([start, end]); return original(start, end); };
  blob.arrayBuffer = () => { throw new Error('the whole Blob was read at once'); };
  await expectSameAsFolder('bert-12x12', { config: new Blob([read('bert-12x12', 'config.json')]), tokenizer: new Blob([read('bert-12x12', 'tokenizer.json')]), weights: blob });
  expect(slices.length).toBeGreaterThan(1);
  expect(slices.every(([start, end]) => end - start <= 4 << 20)).toBe(true);
});

test('a folder given as a file: URL, and the weights as bytes in memory', async () => {
  await expectSameAsFolder('distilbert', pathToFileURL(`${DIR}distilbert/`));
  await expectSameAsFolder('gpt2-legacy', {
    config: read('gpt2-legacy', 'config.json').toString(), tokenizer: JSON.parse(read('gpt2-legacy', 'tokenizer.json')),
    weights: new Uint8Array(read('gpt2-legacy', 'model.safetensors')),
  });
});

test('progress reports every file of a folder, as of a Hub model', async () => {
  const events = [];
  const model = await engine.loadModel(`${DIR}bert-12x12`, { onProgress: (p) => events.push(p) });
  model.dispose();
  const whole = (file) => ({ file, loaded: read('bert-12x12', file).length, total: read('bert-12x12', file).length });
  expect(events.filter((e) => e.file !== 'model.safetensors')).toEqual([whole('config.json'), whole('tokenizer.json')]);
  expect(events.at(-1)).toEqual(whole('model.safetensors'));
});

test('{ builtin: "default" } is the default model, and an unknown name lists the built-in ones', async () => {
  const [named, omitted] = await Promise.all([engine.loadModel({ builtin: 'default' }), engine.loadModel()]);
  expect(named.run(SENTENCE).attention(1, 2)).toEqual(omitted.run(SENTENCE).attention(1, 2));
  await expect(engine.loadModel({ builtin: 'causal!' })).rejects.toThrow(
    'loadModel has no built-in model the string "causal!"; the built-in models are default, causal');
  named.dispose();
  omitted.dispose();
});

test('a File that cannot be read names the file', async () => {
  const broken = new File(['x'], 'model.safetensors');
  broken.slice = () => ({ arrayBuffer: () => Promise.reject(new Error('NotReadableError')) });
  await expect(engine.loadModel({ config: read('bert-plain', 'config.json').toString(), tokenizer: read('bert-plain', 'tokenizer.json').toString(), weights: broken }))
    .rejects.toThrow('cannot read model.safetensors from the file "model.safetensors": NotReadableError');
});
