// What the views draw, taken from the engine's results: every matrix of a layer as plain arrays,
// and the data one view needs from a list of such layers. The page (through its worker) and the
// <multihead-view> element both use it, so a view shows the same numbers wherever it is embedded.
// It computes nothing and touches no page.

/** Every matrix of one layer's attention, copied out of `trace` (an AttentionTrace). */
export function layerMatrices(trace, input) {
  const heads = Array.from({ length: trace.numHeads }, (_, h) => h);
  return {
    dModel: trace.dModel,
    numHeads: trace.numHeads,
    dHead: trace.dHead,
    input, // (n, dModel)
    queries: heads.map((h) => trace.queries(h)), // (n, dHead) each
    keys: heads.map((h) => trace.keys(h)),
    values: heads.map((h) => trace.values(h)),
    weights: heads.map((h) => trace.weights(h)), // (n, n) each
    headOutputs: heads.map((h) => trace.headOutput(h)), // (n, dHead) each
    concat: trace.concat(), // (n, dModel)
    output: trace.output(), // (n, dModel)
  };
}

/** Every layer of a model.run() result, as layerMatrices. */
export function modelLayers(result) {
  return Array.from({ length: result.layers }, (_, l) => layerMatrices(result.trace(l), result.layerInput(l)));
}

/**
 * What view `view` ('grid', 'head', 'lines' or 'steps') draws for layer `index`: `result` holds
 * { tokens, unknown, layers } (layers as layerMatrices), `head` is a head index, a list of them
 * (lines view) or 'all'; `toy` names the layer as the page's toy layer and prints numbers.
 */
export function viewData(view, result, index, { head = 0, toy = false } = {}) {
  const { tokens, unknown } = result;
  const layer = result.layers[index];
  const where = toy ? 'Toy layer' : `Layer ${index + 1}`;
  const heads = head === 'all' ? layer.weights.map((_, h) => h) : [head].flat();
  switch (view) {
    case 'grid':
      return { tokens, unknown, weights: layer.weights, title: where };
    case 'head':
      return { tokens, unknown, weights: layer.weights[heads[0]], title: `${where}, head ${heads[0] + 1}` };
    case 'lines':
      return { tokens, unknown, weights: layer.weights, heads };
    default:
      return {
        ...layer, tokens, unknown, title: where, numbers: toy,
        inputLabel: toy
          ? `the first ${layer.dModel} features of each token's embedding (word plus position)`
          : index === 0 ? 'each token\'s word embedding plus its position embedding' : `the output of layer ${index}`,
      };
  }
}
