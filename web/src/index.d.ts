// multihead: multi-head attention computed in WebAssembly.
export { loadEngine, Engine, EngineOptions, AttentionConfig, AttentionWeights, EngineMemory } from './engine.js';
export { Attention, ForwardOptions } from './attention.js';
export { AttentionTrace } from './trace.js';
export { simdSupported } from './simd.js';
