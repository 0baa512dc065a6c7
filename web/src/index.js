// multihead: multi-head attention computed in WebAssembly. See README.md for the API.
export { loadEngine, Engine } from './engine.js';
export { Attention } from './attention.js';
export { AttentionTrace } from './trace.js';
export { Model, ModelResult } from './model.js';
export { listCachedModels, deleteCachedModel } from './model-cache.js';
export { averageHeads, rollout } from './rollout.js';
export { ROLES, headRoles, topRole } from './head-roles.js';
export { measureHeadRoles } from './measure-roles.js';
export { simdSupported } from './simd.js';
