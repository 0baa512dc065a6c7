// multihead: multi-head attention computed in WebAssembly.
export { loadEngine, Engine, EngineOptions, AttentionConfig, AttentionWeights, EngineMemory, JsonSource, ModelFiles,
  BuiltinModel, LoadOptions, LoadProgress } from './engine/engine.js';
export { Model, ModelResult, EncoderDecoderResult, Prediction, HeadId, RunOptions, LayerDone, SpecialToken, GenerateOptions, Writing, WritingStep, ChatMessage, Contributions, PatchOptions, PatchResult, QueryKeyMap, TokenChoice } from './model/model.js';
export { listCachedModels, deleteCachedModel, CachedModel } from './loading/cache.js';
export { averageHeads, rollout, AttentionResult } from './analysis/rollout.js';
export { queryKeyMap } from './analysis/query-key-map.js';
export { ROLES, headRoles, topRole, Role, HeadRole } from './analysis/head-roles.js';
export { CROSS_ROLES, crossHeadRoles, CrossRole, CrossHeadRole } from './analysis/cross-roles.js';
export { measureHeadRoles, MeasureOptions, ProbeSet, MeasuredHead, MeasuredRelation, HeadRolesMeasure } from './analysis/measure-roles.js';
export { Attention, ForwardOptions } from './engine/attention.js';
export { AttentionTrace, HeadWeights } from './engine/trace.js';
export { relaxedSimdSupported, simdSupported } from './engine/simd.js';
