// WASM SIMD GELU in its tanh form (f32-gelu-tanh-simd.h), each multiply-add a multiply and an add. Twin of
// f32-gelu-tanh-scalar.cpp.
#include "multihead/kernels.h"
#include "f32-gelu-tanh-simd.h"

namespace multihead::kernels {

void f32_gelu_tanh_wasmsimd(size_t count, const float* x, float* y) { gelu_tanh_simd::map<MulAdd>(count, x, y); }

}  // namespace multihead::kernels
