// Eigen row softmax: the benchmark's baseline twin of f32-softmax-scalar.cpp, built only with
// -DMULTIHEAD_KERNELS=eigen. A row whose keys are all hidden becomes zeros, as in the others.
#include <limits>

#include "multihead/kernels.h"
#include "multihead/matrix.h"

namespace multihead::kernels {

void f32_softmax_eigen(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp) {
  using Row = Eigen::Map<const Eigen::ArrayXf>;
  using OutRow = Eigen::Map<Eigen::ArrayXf>;
  for (size_t i = 0; i < m; ++i) {
    const Row in(s + i * lds, Eigen::Index(n));
    OutRow out(p + i * ldp, Eigen::Index(n));
    const float max = in.maxCoeff();
    if (max == -std::numeric_limits<float>::infinity()) {
      out.setZero();
      continue;
    }
    out = (in - max).exp();
    out /= out.sum();
  }
}

}  // namespace multihead::kernels
