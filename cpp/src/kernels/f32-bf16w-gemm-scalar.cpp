// Scalar GEMM with bfloat16 weights, C = A·B + bias, B packed by pack_b_bf16: the reference for
// f32-bf16w-gemm-wasmsimd.cpp. Each B value is widened to the float32 it stands for (its 16
// bits as a float's upper half, exact) and accumulated in f32-gemm-scalar.cpp's order, so the result
// is that kernel's on the widened B, to the last bit.
#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_bf16w_gemm_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed,
                           size_t panel_stride, const float* bias, float* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const uint16_t* panel = b_packed + j / kPanelWidth * panel_stride + bf16_slot(j % kPanelWidth);
      float acc = bias ? bias[j] : 0.0f;
      for (size_t p = 0; p < k; ++p) acc += a[i * lda + p] * bf16_to_f32(panel[p * kPanelWidth]);
      c[i * ldc + j] = acc;
    }
  }
}

}  // namespace multihead::kernels
