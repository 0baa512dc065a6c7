// The page's Web Worker: it owns the engine, the default model and the toy layer, so tokenizing
// and computing never block typing. It answers each { id, text, toy } with plain arrays (moved,
// not copied) for the views, or with { error } naming what was wrong. It draws nothing and keeps
// no history: the page decides what to ask and when.
import { loadEngine } from '../src/index.js';
import { layerMatrices, modelLayers } from '../src/views/view-data.js';

const state = {
  engine: null,
  model: null,
  toy: null, // { key, attention }: the toy layer, kept while its settings stay the same
};

const ready = (async () => {
  state.engine = await loadEngine();
  state.model = await state.engine.loadModel();
  const { dModel, numLayers, numHeads, maxTokens } = state.model;
  return { simd: state.engine.simd, dModel, numLayers, numHeads, maxTokens };
})();

ready.then(
  (info) => self.postMessage({ type: 'ready', info }),
  (error) => self.postMessage({ type: 'error', message: `The engine or the model failed to load: ${error.message}` }),
);

self.onmessage = async ({ data }) => {
  await ready;
  try {
    const start = performance.now();
    const result = state.model.run(data.text);
    const layers = data.toy
      ? [toyLayer(result.layerInput(0), result.tokens.length, data.toy)]
      : modelLayers(result);
    const { tokens, unknown, truncated, totalTokens } = result;
    const message = { type: 'result', id: data.id, tokens, unknown, truncated, totalTokens, layers, ms: performance.now() - start };
    self.postMessage(message, layers.flatMap(buffers));
  } catch (error) {
    self.postMessage({ type: 'error', id: data.id, message: error.message });
  }
};

/**
 * The toy layer: a seeded random attention layer of the user's size, reading the first dModel
 * features of each token's embedding (the model's layer-1 input), so its rows are the sentence.
 */
function toyLayer(embeddings, n, { dModel, numHeads, causal, seed }) {
  const width = state.model.dModel;
  if (dModel > width) throw new RangeError(`the toy layer's d_model must be at most ${width}, got ${dModel}`);
  const key = `${dModel}/${numHeads}/${causal}/${seed}`;
  if (state.toy?.key !== key) {
    const attention = state.engine.createAttention({ dModel, numHeads, causal, seed });
    state.toy?.attention.dispose();
    state.toy = { key, attention };
  }
  const x = new Float32Array(n * dModel); // (n, dModel)
  for (let i = 0; i < n; i++) x.set(embeddings.subarray(i * width, i * width + dModel), i * dModel);
  return layerMatrices(state.toy.attention.forward(x, n), x);
}

function buffers(l) {
  return [l.input, ...l.queries, ...l.keys, ...l.values, ...l.weights, ...l.headOutputs, l.concat, l.output].map((a) => a.buffer);
}
