// a·b + c on four floats, the one operation the plain and relaxed SIMD kernels differ in. MulAdd
// is WASM SIMD128's two instructions, rounded twice. RelaxedMadd is relaxed SIMD's
// f32x4.relaxed_madd, which an engine may fuse (one rounding, as V8 does on a CPU with FMA3) or
// not: clang 14 only has it as the prototype __builtin_wasm_fma_f32x4, whose opcode
// tools/relaxed-simd.js rewrites into the final one after linking. A kernel written once over
// `Madd` is instantiated for each in its wasmsimd and wasmrelaxedsimd files.
#pragma once

#include <wasm_simd128.h>

namespace multihead::kernels {

struct MulAdd {
  static v128_t madd(v128_t a, v128_t b, v128_t c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
};

#ifdef __wasm_relaxed_simd__
struct RelaxedMadd {
  static v128_t madd(v128_t a, v128_t b, v128_t c) { return __builtin_wasm_fma_f32x4(a, b, c); }
};
#endif

}  // namespace multihead::kernels
