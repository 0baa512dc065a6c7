// Scalar row softmax: the reference for f32-softmax-wasmsimd.cpp.
#include <cmath>
#include <limits>

#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_softmax_scalar(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp) {
  for (size_t i = 0; i < m; ++i) {
    const float* in = s + i * lds;
    float* out = p + i * ldp;
    float max = -std::numeric_limits<float>::infinity();
    for (size_t j = 0; j < n; ++j) max = std::fmax(max, in[j]);
    if (std::isinf(max) && max < 0) {  // every key hidden: define the row as zeros, not 0/0
      for (size_t j = 0; j < n; ++j) out[j] = 0.0f;
      continue;
    }
    float sum = 0.0f;
    for (size_t j = 0; j < n; ++j) {
      out[j] = std::exp(in[j] - max);
      sum += out[j];
    }
    for (size_t j = 0; j < n; ++j) out[j] /= sum;
  }
}

}  // namespace multihead::kernels
