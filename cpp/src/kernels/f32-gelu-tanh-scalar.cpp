// Scalar GELU with the tanh approximation, x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))): GPT-2's
// "gelu_new" (and transformers' NewGELUActivation). The reference for f32-gelu-tanh-wasmsimd.cpp.
// Not the erf form: that is f32-gelu-scalar.cpp.
#include <cmath>

#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_gelu_tanh_scalar(size_t count, const float* x, float* y) {
  constexpr float kSqrt2OverPi = 0.79788456080286536f;
  for (size_t i = 0; i < count; ++i) {
    const float u = kSqrt2OverPi * (x[i] + 0.044715f * x[i] * x[i] * x[i]);
    y[i] = 0.5f * x[i] * (1.0f + std::tanh(u));
  }
}

}  // namespace multihead::kernels
