// multihead: multi-head attention computed in WebAssembly.
export { loadEngine, Engine, EngineOptions, AttentionConfig, AttentionWeights, EngineMemory, JsonSource, ModelFiles } from './engine.js';
export { Model, ModelResult } from './model.js';
export { Attention, ForwardOptions } from './attention.js';
export { AttentionTrace } from './trace.js';
export { simdSupported } from './simd.js';
