// Relaxed-SIMD GELU in its tanh form (f32-gelu-tanh-simd.h), each multiply-add one f32x4.relaxed_madd. Twin
// of f32-gelu-tanh-scalar.cpp.
#include "multihead/kernels.h"
#include "f32-gelu-tanh-simd.h"

namespace multihead::kernels {

void f32_gelu_tanh_wasmrelaxedsimd(size_t count, const float* x, float* y) { gelu_tanh_simd::map<RelaxedMadd>(count, x, y); }

}  // namespace multihead::kernels
