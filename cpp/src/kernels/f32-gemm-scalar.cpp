// Scalar GEMM, C = A·B + bias with B packed: the reference for f32-gemm-wasmsimd-2x16.cpp.
// It accumulates in the same order as the SIMD kernel (bias first, then p = 0 … k-1), so the two
// agree to the last bit when the compiler does not fuse multiply-adds.
#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_gemm_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                     size_t panel_stride, const float* bias, float* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const float* panel = b_packed + j / kPanelWidth * panel_stride + j % kPanelWidth;
      float acc = bias ? bias[j] : 0.0f;
      for (size_t p = 0; p < k; ++p) acc += a[i * lda + p] * panel[p * kPanelWidth];
      c[i * ldc + j] = acc;
    }
  }
}

}  // namespace multihead::kernels
