// Defect 11 of issue 11: a trace from forwardView() is a set of views into WASM memory. Read after
// its layer ran again, after dispose() or after the memory grew, it used to show other data
// without a word; now every accessor says it is out of date.
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, randomValues } from '../helpers.js';

const OUT_OF_DATE = 'This trace from forwardView() is out of date';

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine, layer;
  beforeEach(async () => {
    engine = await loadEngine(options);
    layer = engine.createAttention({ dModel: 8, numHeads: 2, seed: 42 });
  });
  afterEach(() => engine.dispose());
  const x = randomValues(24, 1);
  const accessors = [(t) => t.weights(0), (t) => t.scores(1), (t) => t.queries(0), (t) => t.keys(1), (t) => t.values(0),
    (t) => t.headOutput(1), (t) => t.concat(), (t) => t.output()];

  test('a view trace reads normally until its layer runs again', () => {
    const trace = layer.forwardView(x, 3);
    const copy = layer.forward(x, 3); // a copying call leaves the view alone
    expect(trace.weights(1)).toEqual(copy.weights(1));
    layer.forwardView(randomValues(24, 2), 3);
    for (const read of accessors) expect(() => read(trace)).toThrow(OUT_OF_DATE);
  });

  test('a view trace read after dispose() throws instead of reading freed memory', () => {
    const trace = layer.forwardView(x, 3);
    layer.dispose();
    for (const read of accessors) expect(() => read(trace)).toThrow(OUT_OF_DATE);
  });

  test('a view trace read after the engine is disposed throws', () => {
    const trace = layer.forwardView(x, 3);
    engine.dispose();
    expect(() => trace.output()).toThrow(OUT_OF_DATE);
  });

  test('a view trace read after another layer grew WASM memory throws', () => {
    const trace = layer.forwardView(x, 3);
    engine.createAttention({ dModel: 2048, numHeads: 8, seed: 9 });
    expect(() => trace.weights(0)).toThrow(OUT_OF_DATE);
  });

  test('a trace from forward() stays valid through all of that', () => {
    const trace = layer.forward(x, 3);
    const weights = trace.weights(0);
    layer.forwardView(randomValues(24, 2), 3);
    engine.createAttention({ dModel: 2048, numHeads: 8, seed: 9 });
    layer.dispose();
    expect(trace.weights(0)).toEqual(weights);
  });
});
