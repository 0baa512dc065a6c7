// WASM SIMD table-times-vector, F32 and BF16 tables (f32-gemv-simd.h), each multiply-add
// a multiply and an add. Twin of f32-gemv-scalar.cpp, bit-identical to it.
#include "multihead/kernels.h"
#include "f32-gemv-simd.h"

namespace multihead::kernels {

void f32_gemv_wasmsimd(size_t rows, size_t d, const float* table, const float* x, float* out) {
  gemv_simd::rows_dot<MulAdd>(rows, d, table, x, out);
}

void f32_bf16w_gemv_wasmsimd(size_t rows, size_t d, const uint16_t* table, const float* x, float* out) {
  gemv_simd::bf16_table_dot<MulAdd>(rows, d, table, x, out);
}

}  // namespace multihead::kernels
