// Scalar RMS normalisation over each row, x / √(mean(x²) + eps) · weight, as transformers'
// LlamaRMSNorm computes it in float32: the reference for f32-rms-norm-wasmsimd.cpp. Gemma's
// (1 + w) is the caller's: it passes the weight with 1 added.
#include <cmath>

#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_rms_norm_scalar(size_t m, size_t n, const float* x, size_t ldx, const float* weight, float eps, float* y, size_t ldy) {
  for (size_t i = 0; i < m; ++i) {
    const float* in = x + i * ldx;
    float* out = y + i * ldy;
    float squares = 0.0f;
    for (size_t j = 0; j < n; ++j) squares += in[j] * in[j];
    const float inv_rms = 1.0f / std::sqrt(squares / float(n) + eps);
    for (size_t j = 0; j < n; ++j) out[j] = in[j] * inv_rms * weight[j];
  }
}

}  // namespace multihead::kernels
