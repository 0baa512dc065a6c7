// Defect 10 of issue 11, the JavaScript side: an error names the argument and its value as given,
// including a missing one, and a model source that is neither a URL nor a path says so.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { HOSTILE_BUILDS } from '../helpers.js';

const MODEL = fileURLToPath(new URL('../../../web/models/default/', import.meta.url));

describe.each(HOSTILE_BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(options); });
  afterAll(() => engine.dispose());

  test.each([
    [() => engine.createAttention(), 'createAttention options must be an object, got undefined'],
    [() => engine.createAttention({ dModel: 8, seed: 1 }), 'numHeads must be an integer, got undefined'],
    [() => engine.createAttention({ numHeads: 2, seed: 1 }), 'dModel must be an integer, got undefined'],
    [() => engine.createAttention({ dModel: 8, numHeads: 2, seed: 1 }).forward(), 'nTokens must be an integer, got undefined'],
    [() => engine.createAttention({ dModel: 8, numHeads: 2, seed: 1 }).forward(undefined, 3), 'x must be a Float32Array (or an array of numbers), got undefined'],
    [() => engine.createAttention({ dModel: 8, numHeads: 2, seed: 1 }).output(new Float64Array(24).fill(1e39), 3),
      "x[0] is number 1e+39, outside float32's range (±3.403e+38); every value must be a finite number"],
  ])('a missing or out-of-range argument is named with its value: %#', (call, message) => {
    expect(call).toThrow(message);
    expect(call).not.toThrow('undefined undefined');
  });

  test('a folder path relative to the working directory loads in Node when it starts with ./', async () => {
    const model = await engine.loadModel(`./${relative(process.cwd(), MODEL)}`);
    expect(model.numLayers).toBe(4);
    model.dispose();
  });

  test('an absolute folder path loads in Node', async () => {
    const model = await engine.loadModel(MODEL);
    expect(model.numLayers).toBe(4);
    model.dispose();
  });

  test('a string that is neither a Hub id, a URL nor a path says so, instead of a bare "Invalid URL"', async () => {
    await expect(engine.loadModel('models//default')).rejects.toThrow(
      '"models//default" is not a Hub model id: use "owner/name" or "name"');
    await expect(engine.loadModel('models//default')).rejects.toThrow('(a folder path must be absolute or start with ./ or ../)');
    await expect(engine.loadModel('')).rejects.toThrow('loadModel was given an empty string');
  });

  test('a folder that does not exist names the file and the path', async () => {
    await expect(engine.loadModel('./no/such/folder')).rejects.toThrow(/cannot read config\.json from file:\/\/\/.*\/no\/such\/folder\/config\.json: ENOENT/);
  });
});
