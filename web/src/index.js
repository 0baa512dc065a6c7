// multihead: multi-head attention computed in WebAssembly. See README.md for the API.
export { loadEngine, Engine } from './engine/engine.js';
export { Attention } from './engine/attention.js';
export { AttentionTrace } from './engine/trace.js';
export { Model, ModelResult } from './model/model.js';
export { listCachedModels, deleteCachedModel } from './loading/cache.js';
export { averageHeads, rollout } from './analysis/rollout.js';
export { queryKeyMap } from './analysis/query-key-map.js';
export { ROLES, headRoles, topRole } from './analysis/head-roles.js';
export { CROSS_ROLES, crossHeadRoles } from './analysis/cross-roles.js';
export { measureHeadRoles } from './analysis/measure-roles.js';
export { relaxedSimdSupported, simdSupported } from './engine/simd.js';
