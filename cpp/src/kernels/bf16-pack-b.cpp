// Packing of a bfloat16 GEMM operand into the panels f32-bf16w-gemm reads: pack_b's panels
// (kernels.h), each value its 16 bits, half the bytes, the columns of each 8 in bf16_slot's order.
// No scale: the bits move as they are.
#include <algorithm>

#include "multihead/kernels.h"

namespace multihead::kernels {

void pack_b_bf16(size_t k, size_t n, const uint16_t* b, size_t row_stride, size_t col_stride, uint16_t* out) {
  for (size_t j0 = 0; j0 < n; j0 += kPanelWidth) {
    const size_t width = std::min(kPanelWidth, n - j0);
    for (size_t p = 0; p < k; ++p) {
      const uint16_t* row = b + p * row_stride + j0 * col_stride;
      for (size_t c = 0; c < width; ++c) out[bf16_slot(c)] = row[c * col_stride];
      for (size_t c = width; c < kPanelWidth; ++c) out[bf16_slot(c)] = 0;  // +0.0
      out += kPanelWidth;
    }
  }
}

}  // namespace multihead::kernels
