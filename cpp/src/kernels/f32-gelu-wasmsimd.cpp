// WASM SIMD GELU (f32-gelu-simd.h), each multiply-add a multiply and an add. Twin of
// f32-gelu-scalar.cpp.
#include "multihead/kernels.h"
#include "f32-gelu-simd.h"

namespace multihead::kernels {

void f32_gelu_wasmsimd(size_t count, const float* x, float* y) { gelu_simd::map<MulAdd>(count, x, y); }

}  // namespace multihead::kernels
