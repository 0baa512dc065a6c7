// The built-in encoder–decoder (web/models/reverse, tools/train_seq2seq_model.py), loaded as a user
// would with { builtin: 'reverse' } and run by the engine in every build: it writes each sequence
// of words reversed, and one of its cross-attention heads reads, for each word it writes, the
// source word it copies, as its model card says of the float64 reference.
import { readFileSync } from 'node:fs';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS } from '../helpers.js';

const tokenizer = JSON.parse(readFileSync(new URL('../../../web/models/reverse/tokenizer.json', import.meta.url), 'utf8'));
const WORDS = Object.keys(tokenizer.model.vocab).filter((w) => !/^</.test(w));

// Sequences of 3 to 10 words, drawn with a seeded generator (mulberry32).
function sequences(count, seed) {
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return Array.from({ length: count }, () => Array.from({ length: 3 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]));
}

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine, model;
  beforeAll(async () => {
    engine = await loadEngine(options);
    model = await engine.loadModel({ builtin: 'reverse' });
  });
  afterAll(() => engine.dispose());

  test('it writes each sequence reversed', async () => {
    expect(model.encoderDecoder).toBe(true);
    for (const words of sequences(12, 5)) {
      const writing = model.generate(words.join(' '), { maxNewTokens: 16 });
      for await (const step of writing) expect(step.crossAttention(0, 0).nKeys).toBe(words.length + 2);
      expect(writing.stopReason).toBe('eos');
      expect(writing.text).toBe([...words].reverse().join(' '));
    }
  });

  test('its best cross-attention head reads the source word each target word copies', () => {
    const { numDecoderLayers: layers, numHeads: heads } = model;
    const hits = new Float64Array(layers * heads);
    let count = 0;
    for (const words of sequences(40, 11)) {
      const n = words.length;
      const result = model.run(words.join(' '), { target: [...words].reverse().join(' ') });
      // The target is [</s>, <s>, w[n-1], …, w[0]]: the row of position 1 + t is the query that
      // chooses w[n-1-t], which stands in source column 1 + (n-1-t) (after <s>).
      for (let l = 0; l < layers; l++) {
        for (let h = 0; h < heads; h++) {
          const weights = result.crossAttention(l, h), columns = weights.nKeys;
          for (let t = 0; t < n; t++) {
            const row = weights.subarray((1 + t) * columns, (2 + t) * columns);
            const best = row.indexOf(Math.max(...row));
            if (best === 1 + (n - 1 - t)) hits[l * heads + h] += 1;
          }
        }
      }
      count += n;
    }
    const best = Math.max(...hits) / count;
    console.log(`[reverse] ${build}: best cross head alignment ${best.toFixed(3)} over ${count} target words`);
    expect(best).toBeGreaterThan(0.95);
  });
});
