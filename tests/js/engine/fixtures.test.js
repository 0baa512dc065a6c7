// Both WASM builds against torch.nn.MultiheadAttention (tests/fixtures/attention) to 1e-5.
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, FIXTURE_CASES, maxAbsDiff, readFixture } from '../helpers.js';

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(options); });
  afterAll(() => engine.dispose());

  test.each(FIXTURE_CASES)('matches torch.nn.MultiheadAttention on %s to 1e-5', (name) => {
    const f = readFixture(name);
    const { x, weights: expectedWeights, output: expectedOutput, ...w } = f.tensors;
    const attention = engine.createAttention({ dModel: f.d_model, numHeads: f.n_heads, causal: f.causal === 1, weights: w });
    const options = f.keyMask ? { keyMask: f.keyMask } : {};
    const trace = attention.forward(x, f.n_tokens, options);
    const n2 = f.n_tokens * f.n_tokens;
    let weightsDiff = 0;
    for (let h = 0; h < f.n_heads; h++) {
      weightsDiff = Math.max(weightsDiff, maxAbsDiff(trace.weights(h), expectedWeights.subarray(h * n2, (h + 1) * n2)));
    }
    const outputDiff = maxAbsDiff(trace.output(), expectedOutput);
    process.stdout.write(`[fixture] ${build} ${name}: max |diff| weights ${weightsDiff.toExponential(2)}, output ${outputDiff.toExponential(2)}\n`);
    expect(weightsDiff).toBeLessThan(1e-5);
    expect(outputDiff).toBeLessThan(1e-5);
    expect(maxAbsDiff(attention.output(x, f.n_tokens, options), expectedOutput)).toBeLessThan(1e-5);
    attention.dispose();
  });
});
