// Relaxed-SIMD SiLU (f32-silu-simd.h), each multiply-add one f32x4.relaxed_madd. Twin
// of f32-silu-scalar.cpp.
#include "multihead/kernels.h"
#include "f32-silu-simd.h"

namespace multihead::kernels {

void f32_silu_wasmrelaxedsimd(size_t count, const float* x, float* y) { silu_simd::map<RelaxedMadd>(count, x, y); }

}  // namespace multihead::kernels
