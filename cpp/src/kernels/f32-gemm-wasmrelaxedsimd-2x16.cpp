// Relaxed-SIMD GEMM in register tiles of 2 rows × 16 columns (f32-gemm-2x16-simd.h), each
// multiply-add one f32x4.relaxed_madd. Twin of f32-gemm-scalar.cpp, which it matches to the
// rounding a fused multiply-add saves.
#include "multihead/kernels.h"
#include "f32-gemm-2x16-simd.h"

namespace multihead::kernels {

void f32_gemm_wasmrelaxedsimd_2x16(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                                   size_t panel_stride, const float* bias, float* c, size_t ldc) {
  gemm_2x16::gemm<RelaxedMadd>(m, n, k, a, lda, b_packed, panel_stride, bias, c, ldc);
}

}  // namespace multihead::kernels
