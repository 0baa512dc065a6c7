// multihead: multi-head attention computed in WebAssembly.
export { loadEngine, Engine, EngineOptions, AttentionConfig, AttentionWeights, EngineMemory, JsonSource, ModelFiles,
  BuiltinModel, LoadOptions, LoadProgress } from './engine.js';
export { Model, ModelResult, Architecture, Prediction, HeadId, RunOptions } from './model.js';
export { listCachedModels, deleteCachedModel, CachedModel } from './model-cache.js';
export { averageHeads, rollout, AttentionResult } from './rollout.js';
export { ROLES, headRoles, topRole, Role, HeadRole } from './head-roles.js';
export { measureHeadRoles, MeasureOptions, ProbeSet, MeasuredHead, MeasuredRelation, HeadRolesMeasure } from './measure-roles.js';
export { Attention, ForwardOptions } from './attention.js';
export { AttentionTrace } from './trace.js';
export { simdSupported } from './simd.js';
