/** Whether this JavaScript engine can run the WebAssembly SIMD build. */
export function simdSupported(): boolean;
