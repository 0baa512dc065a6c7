/** Where one head's queries and keys fall on a shared map: [x, y] pairs, and each axis's share of the spread. */
export interface QueryKeyMap {
  /** (nQ × 2): query i at [x, y] = [queries[2i], queries[2i + 1]]. */
  readonly queries: Float32Array;
  /** (nK × 2), as queries. */
  readonly keys: Float32Array;
  /** Each axis's eigenvalue over the union's total variance; [0, 0] when every point is the same. */
  readonly explained: readonly [number, number];
}

/**
 * One head's queries and keys on one 2-D map, as AttentionViz draws them: the keys moved so that
 * their mean is the queries' mean, each set scaled to a mean norm of 1, then PCA of the union. A
 * query near a key means a large dot product; the map shows which keys a query prefers, not how
 * sharply (the normalisation drops the scale that sets softmax's temperature). Each axis is signed
 * so that its largest-magnitude coordinate is positive. queries (nQ × headDim) and keys
 * (nK × headDim) are row-major, read as float32; headDim from 1 to 512. More in query-key-map.js.
 */
export function queryKeyMap(queries: Float32Array | readonly number[], keys: Float32Array | readonly number[], headDim: number): QueryKeyMap;
