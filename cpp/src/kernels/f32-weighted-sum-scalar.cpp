// Scalar weighted sum of values, O = P·V: the reference for f32-weighted-sum-wasmsimd-4x8.cpp.
#include "key-visibility.h"
#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_weighted_sum_scalar(size_t m, size_t n, size_t d, const float* p, size_t ldp,
                             const float* v, size_t ldv, bool causal, float* o, size_t ldo) {
  for (size_t i = 0; i < m; ++i) {
    const size_t end = visible_key_end(i, n, causal);
    for (size_t c = 0; c < d; ++c) {
      float acc = 0.0f;
      for (size_t j = 0; j < end; ++j) acc += p[i * ldp + j] * v[j * ldv + c];
      o[i * ldo + c] = acc;
    }
  }
}

}  // namespace multihead::kernels
