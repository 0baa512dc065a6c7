// @ts-check
// One attention of an encoder–decoder's run (EncoderDecoderResult), shaped as a one-stack model's
// result: the page and <multihead-view> show one stack at a time ('encoder', 'decoder' or 'cross':
// the page's "Attention of" choice, the element's stack attribute), and everything drawn of it (a
// layer's weights, the model view, a trace, an average, the head roles, the predictions) is then
// computed as for any other model.
// A stack's query tokens are its rows: the source for the encoder, the decoder's input (its
// start tokens, then the target) for the decoder and the cross-attention; `keyTokens` are the
// cross-attention's columns, the source. The decoder's and the cross-attention's rows predict the
// next target token (`writes`); the encoder's predict nothing.

/**
 * @param {import('../model/encoder-decoder.js').EncoderDecoderResult} result
 * @param {'encoder' | 'decoder' | 'cross'} stack
 */
export function stackRun(result, stack) {
  const source = { tokens: result.tokens, unknown: result.unknown, ids: result.ids };
  const target = { tokens: result.targetTokens, unknown: result.targetTokens.map(() => false), ids: result.targetIds };
  const rows = stack === 'encoder' ? source : target;
  const keys = stack === 'cross' ? source : rows;
  const attention = {
    encoder: (l, h) => result.attention(l, h),
    decoder: (l, h) => result.decoderAttention(l, h),
    cross: (l, h) => result.crossAttention(l, h),
  }[stack];
  return {
    stack,
    tokens: rows.tokens,
    unknown: rows.unknown,
    ids: rows.ids,
    keyTokens: keys.tokens,
    keyUnknown: keys.unknown,
    keyIds: keys.ids,
    // The source's truncation: the target is the page's own, never cut.
    truncated: result.truncated,
    totalTokens: stack === 'encoder' ? result.totalTokens : rows.tokens.length,
    numLayers: stack === 'encoder' ? result.numLayers : result.numDecoderLayers,
    numHeads: result.numHeads,
    dModel: result.dModel,
    causal: stack === 'decoder',
    writes: stack !== 'encoder' && result.hasLmHead,
    ablated: result.ablated,
    ablation: result.ablation,
    attention,
    trace: (layer) => result.trace(layer, stack),
    layerInput: (layer) => result.layerInput(layer, stack),
    logits: (position) => result.logits(position),
    predictions: (position, k) => result.predictions(position, k),
  };
}
