// Scalar attention scores, S = scale·Q·Kᵀ with masking: the reference for f32-scores-wasmsimd-1x4.cpp.
#include "key-visibility.h"
#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_scores_scalar(size_t m, size_t n, size_t d, float scale, const float* q, size_t ldq,
                       const float* k, size_t ldk, const uint8_t* key_mask, bool causal, float* s,
                       size_t lds) {
  for (size_t i = 0; i < m; ++i) {
    const size_t end = visible_key_end(i, n, causal);
    for (size_t j = 0; j < end; ++j) {
      float dot = 0.0f;
      for (size_t p = 0; p < d; ++p) dot += q[i * ldq + p] * k[j * ldk + p];
      s[i * lds + j] = dot * scale;
    }
    hide_masked_scores(s + i * lds, n, end, key_mask);
  }
}

}  // namespace multihead::kernels
