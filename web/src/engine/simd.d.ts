/** Whether this JavaScript engine can run the WebAssembly SIMD build. */
export function simdSupported(): boolean;
/** Whether it can run the relaxed-SIMD build (fused multiply-add): Chromium can, Node 20 with --experimental-wasm-relaxed-simd. */
export function relaxedSimdSupported(): boolean;
