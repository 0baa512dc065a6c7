// Scalar GEMM, C = A·B + bias: the reference for f32-gemm-wasmsimd-4x8.cpp.
// It accumulates in the same order as the SIMD kernel (bias first, then p = 0 … k-1), so the two
// agree to the last bit when the compiler does not fuse multiply-adds.
#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_gemm_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                     size_t ldb, const float* bias, float* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      float acc = bias ? bias[j] : 0.0f;
      for (size_t p = 0; p < k; ++p) acc += a[i * lda + p] * b[p * ldb + j];
      c[i * ldc + j] = acc;
    }
  }
}

}  // namespace multihead::kernels
