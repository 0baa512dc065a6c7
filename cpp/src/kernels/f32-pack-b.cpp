// Packing of GEMM's B operand into column panels (layout in kernels.h). One plain implementation
// for every kernel set: it moves each value once, which costs little next to the k·n·m
// multiply-adds that then read it contiguously.
#include <algorithm>

#include "multihead/kernels.h"

namespace multihead::kernels {

void pack_b(size_t k, size_t n, const float* b, size_t row_stride, size_t col_stride, float scale, float* out) {
  for (size_t j0 = 0; j0 < n; j0 += kPanelWidth) {
    const size_t width = std::min(kPanelWidth, n - j0);
    for (size_t p = 0; p < k; ++p) {
      const float* row = b + p * row_stride + j0 * col_stride;
      for (size_t c = 0; c < width; ++c) out[c] = scale * row[c * col_stride];
      for (size_t c = width; c < kPanelWidth; ++c) out[c] = 0.0f;
      out += kPanelWidth;
    }
  }
}

}  // namespace multihead::kernels
