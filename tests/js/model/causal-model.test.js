// The causal built-in model's induction circuit, measured by the engine: on the same repeated
// random words that tools/measure_induction.py measures (drawn here with the same xorshift32), every
// head's induction and previous-token scores and the first- and second-copy losses equal the ones
// the script wrote to tests/fixtures/models/causal-heads.json, to 3 decimals, on both SIMD builds. So
// the model card's numbers are the engine's, not only PyTorch's; and the bars the card claims hold.
// With the best induction head or the best previous-token head zeroed by the engine's ablation, the
// second-copy loss is the one PyTorch measured with that head masked (Hugging Face's head_mask).
// And on each of the page's causal examples, which repeat a phrase, the model predicts the repeat.
import { readFileSync } from 'node:fs';
import { loadEngine } from '../../../web/src/index.js';
import { xorshift32 } from '../../../web/src/analysis/measure-roles.js';
import { EXAMPLES } from '../../../web/demo/examples.js';
import { BUILDS } from '../helpers.js';

const measured = JSON.parse(readFileSync(new URL('../../fixtures/models/causal-heads.json', import.meta.url), 'utf8'));
const tokenizer = JSON.parse(readFileSync(new URL('../../../web/models/causal/tokenizer.json', import.meta.url), 'utf8'));
const WORDS = Object.entries(tokenizer.model.vocab).sort((a, b) => a[1] - b[1]).map(([word]) => word);
const SPECIALS = tokenizer.added_tokens.length;

/** tools/causal_model.py's repeated_random_sequences, without the <|endoftext|> the tokenizer adds. */
function repeatedRuns(count, length, seed) {
  const draw = xorshift32(seed);
  return Array.from({ length: count }, () => {
    const run = [];
    while (run.length < length) {
      const word = SPECIALS + (draw.next().value % (WORDS.length - SPECIALS));
      if (!run.includes(word)) run.push(word);
    }
    return [...run, ...run];
  });
}

// Math.exp looked up on Math each call is about 25 times slower in Jest's module sandbox than in
// Node (1.4 ms against 60 µs for a 6,000-word row); read once, it is not. This loss is most of the
// suite's time: 40,000 rows per build.
const { exp, log } = Math;

/** Cross-entropy of `next` under the logits. */
function loss(logits, next) {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += exp(logits[i] - max);
  return log(sum) + max - logits[next];
}

// The SIMD builds, which browsers run. The scalar build's numbers on this model are PyTorch's in
// model-fixtures.test.js and the C++ fixtures; here it took half of this suite's 80 s in CI.
const SIMD_BUILDS = BUILDS.filter(([name]) => name !== 'scalar');

describe.each(SIMD_BUILDS)('the %s build', (build, options) => {
  let engine, model, scores;
  beforeAll(async () => {
    engine = await loadEngine(options);
    model = await engine.loadModel({ builtin: 'causal' });
    const { runs, run_length: length, seed } = measured;
    const L = model.numLayers, H = model.numHeads;
    const induction = new Float64Array(L * H), prev = new Float64Array(L * H);
    let first = 0, second = 0, firstCount = 0, secondCount = 0;
    const zeroed = { induction: 0, prev: 0 };
    for (const words of repeatedRuns(runs, length, seed)) {
      const r = model.run(words.map((id) => WORDS[id]).join(' '));
      expect(Array.from(r.ids)).toEqual([0, ...words]); // the text holds exactly the drawn words
      const n = r.ids.length;
      for (let l = 0; l < L; l++) {
        for (let h = 0; h < H; h++) {
          const a = r.attention(l, h);
          for (let i = 0; i < length; i++) induction[l * H + h] += a[(1 + length + i) * n + 2 + i] / (runs * length);
          for (let t = 1; t < n; t++) prev[l * H + h] += a[t * n + t - 1] / (runs * (n - 1));
        }
      }
      for (let t = 1; t < length; t++) {
        first += loss(r.logits(t), r.ids[t + 1]);
        second += loss(r.logits(length + t), r.ids[length + t + 1]);
      }
      firstCount += length - 1;
      secondCount += length - 1;
      // The same run with the best induction head, then the best previous-token head, zeroed.
      for (const [which, { layer, head }] of Object.entries({ induction: measured.best_induction, prev: measured.best_prev })) {
        const ablated = model.run(words.map((id) => WORDS[id]).join(' '), { ablate: [{ layer, head }] });
        for (let t = 1; t < length; t++) zeroed[which] += loss(ablated.logits(length + t), r.ids[length + t + 1]) / (runs * (length - 1));
      }
    }
    scores = { induction, prev, first: first / firstCount, second: second / secondCount, zeroed };
  }, 400000);
  afterAll(() => engine.dispose());

  test('every head\'s induction and previous-token score is the script\'s to 3 decimals', () => {
    const H = model.numHeads;
    for (const { layer, head, induction, prev } of measured.heads) {
      expect(Math.abs(scores.induction[layer * H + head] - induction)).toBeLessThan(5e-4);
      expect(Math.abs(scores.prev[layer * H + head] - prev)).toBeLessThan(5e-4);
    }
    process.stdout.write(`[causal] ${build}: induction ${Array.from(scores.induction, (v) => v.toFixed(3)).join(' ')}\n`);
  });

  test('the second copy\'s loss is at most half the first\'s, as the script measured', () => {
    expect(Math.abs(scores.first - measured.first_copy_loss)).toBeLessThan(5e-4);
    expect(Math.abs(scores.second - measured.second_copy_loss)).toBeLessThan(5e-4);
    expect(scores.second / scores.first).toBeLessThanOrEqual(0.5);
  });

  test('zeroing the best induction head, or the best previous-token head, raises the second-copy loss as it does in PyTorch', () => {
    expect(scores.zeroed.induction).toBeCloseTo(measured.best_induction.second_copy_loss_zeroed, 3);
    expect(scores.zeroed.prev).toBeCloseTo(measured.best_prev.second_copy_loss_zeroed, 3);
    expect(scores.zeroed.induction).toBeGreaterThan(2 * scores.second);
  });

  test('an induction head scores at least 0.5, above a previous-token head of at least 0.6 in an earlier layer', () => {
    const H = model.numHeads;
    const best = scores.induction.reduce((b, v, i) => (v > scores.induction[b] ? i : b), 0);
    expect(scores.induction[best]).toBeGreaterThanOrEqual(0.5);
    const below = scores.prev.slice(0, Math.floor(best / H) * H);
    expect(Math.max(...below)).toBeGreaterThanOrEqual(0.6);
  });

  test.each(EXAMPLES.causal)('after the page\'s example %j the model puts first the word that followed the last word\'s first occurrence', (text) => {
    const r = model.run(text);
    const n = r.tokens.length;
    const earlier = r.ids.indexOf(r.ids[n - 1]);
    expect(earlier).toBeLessThan(n - 1);
    expect(r.tokens).not.toContain('[UNK]');
    expect(r.predictions(n - 1, 1)[0].id).toBe(r.ids[earlier + 1]);
  });
});
