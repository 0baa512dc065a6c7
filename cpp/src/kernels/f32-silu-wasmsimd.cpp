// WASM SIMD SiLU (f32-silu-simd.h), each multiply-add a multiply and an add. Twin of
// f32-silu-scalar.cpp.
#include "multihead/kernels.h"
#include "f32-silu-simd.h"

namespace multihead::kernels {

void f32_silu_wasmsimd(size_t count, const float* x, float* y) { silu_simd::map<MulAdd>(count, x, y); }

}  // namespace multihead::kernels
