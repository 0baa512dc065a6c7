// Scalar GELU with the exact erf form, x·Φ(x) = x/2·(1 + erf(x/√2)), as BERT's "gelu" (not the
// tanh approximation): the reference for f32-gelu-wasmsimd.cpp.
#include <cmath>

#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_gelu_scalar(size_t count, const float* x, float* y) {
  for (size_t i = 0; i < count; ++i) y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
}

}  // namespace multihead::kernels
