// WASM SIMD GEMM with bfloat16 weights (f32-bf16w-gemm-simd.h), each multiply-add
// a multiply and an add. Twin of f32-bf16w-gemm-scalar.cpp, bit-identical to it.
#include "multihead/kernels.h"
#include "f32-bf16w-gemm-simd.h"

namespace multihead::kernels {

void f32_bf16w_gemm_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed,
                              size_t panel_stride, const float* bias, float* c, size_t ldc) {
  bf16w_gemm_simd::gemm<MulAdd>(m, n, k, a, lda, b_packed, panel_stride, bias, c, ldc);
}

}  // namespace multihead::kernels
