// Scalar SiLU, x·σ(x) = x / (1 + e^(−x)): the gate of Llama's and Qwen's MLPs ("silu"). The
// reference for f32-silu-wasmsimd.cpp.
#include <cmath>

#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_silu_scalar(size_t count, const float* x, float* y) {
  for (size_t i = 0; i < count; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
}

}  // namespace multihead::kernels
