// Scalar layer normalisation over each row: the reference for f32-layer-norm-wasmsimd.cpp.
// Two passes (mean, then squared deviations) rather than E[x²] − E[x]², which cancels badly
// when the mean is large compared with the spread.
#include <cmath>

#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_layer_norm_scalar(size_t m, size_t n, const float* x, size_t ldx, const float* gamma,
                           const float* beta, float eps, float* y, size_t ldy) {
  for (size_t i = 0; i < m; ++i) {
    const float* in = x + i * ldx;
    float* out = y + i * ldy;
    float sum = 0.0f;
    for (size_t j = 0; j < n; ++j) sum += in[j];
    const float mean = sum / float(n);
    float squares = 0.0f;
    for (size_t j = 0; j < n; ++j) squares += (in[j] - mean) * (in[j] - mean);
    const float inv_std = 1.0f / std::sqrt(squares / float(n) + eps);
    for (size_t j = 0; j < n; ++j) out[j] = (in[j] - mean) * inv_std * gamma[j] + beta[j];
  }
}

}  // namespace multihead::kernels
