// The encoder–decoder checkpoints (tests/fixtures/seq2seq: T5, Flan-T5, BART, Marian) through the
// WASM module's own functions, in every build: the encoder's, the decoder's and the
// cross-attention's weights against the float64 reference to 1e-5, each layer again from its kept
// input, and a writing whose cross keys are projected once giving the whole run's rows. The JS API
// over them (model.run(source, { target })) is not written yet: these are the engine's answers.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { instantiate, orThrow } from '../../../web/src/engine/wasm-glue.js';
import { createLoader, streamInto } from '../../../web/src/engine/weights-stream.js';
import { BUILDS, maxAbsDiff, readModelCase } from '../helpers.js';

const DIR = fileURLToPath(new URL('../../fixtures/seq2seq/', import.meta.url));
const CHECKPOINTS = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
const CHECKPOINT_GPT2 = fileURLToPath(new URL('../../fixtures/checkpoints/gpt2-new/', import.meta.url));

async function load(module, folder) {
  const bytes = new Uint8Array(readFileSync(`${folder}/model.safetensors`));
  const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  const loader = createLoader(module, readFileSync(`${folder}/config.json`, 'utf8'), bytes.subarray(0, 8 + headerLength));
  try {
    const info = module.loaderInfo(loader);
    const source = { async *chunks(start) { yield bytes.subarray(start); } };
    return { native: await streamInto(module, loader, info, source), config: info.config };
  } finally {
    loader.delete();
  }
}

describe.each(BUILDS)('the %s build', (build, options) => {
  let module;
  beforeAll(async () => { module = await instantiate(build, options.threads ?? 1); });

  test.each(CHECKPOINTS)('%s: every attention of the sentence matches the float64 reference', async (checkpoint) => {
    const { native, config } = await load(module, `${DIR}${checkpoint}`);
    try {
      expect(config).toMatchObject({ encoderDecoder: true, numLayers: expect.any(Number), numDecoderLayers: expect.any(Number) });
      const fixture = readModelCase(`${DIR}${checkpoint}/cases/sentence`);
      const { source, target } = fixture;
      const seen = { encoder: [], decoder: [], cross: [] };
      const hook = (layer, weights, stack) => { seen[stack][layer] = Float32Array.from(weights); };
      const encoder = orThrow(module.runModel(native, source, hook, new Uint8Array(0)));
      const decoder = orThrow(module.runDecoder(native, target, encoder.hidden, hook, new Uint8Array(0)));
      const { numLayers, numDecoderLayers } = config;
      expect([seen.encoder.length, seen.decoder.length, seen.cross.length]).toEqual([numLayers, numDecoderLayers, numDecoderLayers]);
      for (const stack of ['encoder', 'decoder', 'cross']) {
        const want = fixture[`${stack}_attention`], size = want.length / seen[stack].length;
        seen[stack].forEach((weights, l) => expect(maxAbsDiff(weights, want.subarray(l * size, (l + 1) * size))).toBeLessThan(1e-5));
      }
      // A cross layer again from its kept input, over the encoder's output.
      const last = numDecoderLayers - 1;
      const again = orThrow(module.layerTrace(native, last, decoder.crossInputs[last], new Uint8Array(0), 'cross', encoder.hidden));
      expect(maxAbsDiff(again.weights, seen.cross[last])).toBe(0);
      // Written token by token over the projected memory: each step's cross row is the run's.
      const writing = orThrow(module.createGeneration(native, target.length, new Uint8Array(0), encoder.hidden));
      try {
        const heads = config.numHeads, ns = source.length, nt = target.length;
        for (let t = 0; t < nt; t++) {
          const step = [];
          orThrow(module.generationExtend(writing, target.subarray(t, t + 1), (layer, weights, stack) => {
            if (stack === 'cross' && layer === last) step.push(Float32Array.from(weights));
          }));
          for (let h = 0; h < heads; h++) {
            const row = seen.cross[last].subarray((h * nt + t) * ns, (h * nt + t + 1) * ns);
            expect(maxAbsDiff(step[0].subarray(h * ns, (h + 1) * ns), row)).toBeLessThan(1e-5);
          }
        }
      } finally {
        writing.delete();
      }
    } finally {
      native.delete();
    }
  });

  test('bad calls get clear errors and leave the module working', async () => {
    const { native } = await load(module, `${DIR}marian`);
    const gpt2 = (await load(module, CHECKPOINT_GPT2)).native;
    try {
      const source = Int32Array.of(5, 6, 0);
      const memory = orThrow(module.runModel(native, source, undefined, new Uint8Array(0))).hidden;
      expect(module.runDecoder(native, Int32Array.of(95), memory.subarray(0, 5), undefined, new Uint8Array(0)).message)
        .toBe('memory has 5 values, expected n_tokens × d_model (d_model = 32)');
      expect(module.runDecoder(gpt2, Int32Array.of(1), Float32Array.from({ length: 32 }), undefined, new Uint8Array(0)).message)
        .toBe('run_decoder is an encoder–decoder\'s, and GPT-2 has one stack of layers');
      expect(module.layerTrace(native, 0, memory, new Uint8Array(0), 'sideways', undefined).message).toBe("stack must be 'encoder', 'decoder' or 'cross'");
      expect(module.layerTrace(native, 3, memory, new Uint8Array(0), 'cross', memory).message).toBe('layer must be from 0 to 2, got 3');
      expect(module.createGeneration(native, 4, new Uint8Array(0), undefined).message).toBe('an encoder–decoder writes over the encoder\'s output: memory is missing');
      expect(module.runDecoder(native, Int32Array.of(95, 7), memory, undefined, new Uint8Array(0))).not.toBeInstanceOf(Error);
    } finally {
      native.delete();
      gpt2.delete();
    }
  });
});
