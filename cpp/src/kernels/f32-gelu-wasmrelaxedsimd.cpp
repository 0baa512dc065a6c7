// Relaxed-SIMD GELU (f32-gelu-simd.h), each multiply-add one f32x4.relaxed_madd. Twin
// of f32-gelu-scalar.cpp.
#include "multihead/kernels.h"
#include "f32-gelu-simd.h"

namespace multihead::kernels {

void f32_gelu_wasmrelaxedsimd(size_t count, const float* x, float* y) { gelu_simd::map<RelaxedMadd>(count, x, y); }

}  // namespace multihead::kernels
