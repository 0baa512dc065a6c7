// Eigen GEMM, C = A·B + bias with B packed: the benchmark's baseline, built only with
// -DMULTIHEAD_KERNELS=eigen. Eigen 3.4 has no WASM SIMD code, so this measures what its own
// blocking plus the compiler's auto-vectorisation reach. Each 16-column panel is one Eigen product.
#include <algorithm>

#include "multihead/kernels.h"
#include "multihead/matrix.h"

namespace multihead::kernels {

void f32_gemm_eigen(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                    size_t panel_stride, const float* bias, float* c, size_t ldc) {
  using Strided = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
  using Out = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;
  const Strided lhs(a, Eigen::Index(m), Eigen::Index(k), Eigen::OuterStride<>(Eigen::Index(lda)));
  for (size_t j = 0; j < n; j += kPanelWidth) {
    const auto width = Eigen::Index(std::min(kPanelWidth, n - j));
    const ConstMatrixMap panel(b_packed + j / kPanelWidth * panel_stride, Eigen::Index(k), Eigen::Index(kPanelWidth));
    Out out(c + j, Eigen::Index(m), width, Eigen::OuterStride<>(Eigen::Index(ldc)));
    out.noalias() = lhs * panel.leftCols(width);
    if (bias) out.rowwise() += Eigen::Map<const Vector>(bias + j, width);
  }
}

}  // namespace multihead::kernels
