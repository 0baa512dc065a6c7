/**
 * What the analysis functions read: model.run's result, or any object of the same shape.
 * attention(layer, head) returns (n × n) weights, n = tokens.length. An object may give the counts
 * under their former names, layers and heads, instead.
 */
export type AttentionResult = {
  readonly tokens: readonly string[];
  /** The key tokens when they are others than the queries (a cross-attention's source); averageHeads takes them, rollout does not. */
  readonly keyTokens?: readonly string[];
  attention(layer: number, head: number): Float32Array;
} & ({ readonly numLayers: number; readonly numHeads: number } | { readonly layers: number; readonly heads: number });

/** The mean of one layer's heads, (n × nKeys) row-major: query rows, key columns. */
export function averageHeads(result: AttentionResult, layer: number): Float32Array;

/**
 * Attention rollout (Abnar & Zuidema 2020): each layer's head average mixed with the identity,
 * (A + I) / 2, rows renormalised, multiplied from the first layer up. (n × n), rows sum to 1.
 */
export function rollout(result: AttentionResult): Float32Array;
