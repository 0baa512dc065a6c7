// The matrix types used throughout: Eigen, float, row-major, so a Matrix's data() is the flat
// (rows, cols) buffer that kernels and JavaScript read directly.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "multihead/kernels.h"

namespace multihead {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

// A right-hand GEMM operand (rows, cols), packed once into the panels kernels::gemm reads.
struct PackedMatrix {
  PackedMatrix() = default;
  explicit PackedMatrix(const Matrix& b) : rows(size_t(b.rows())), cols(size_t(b.cols())), data(kernels::packed_size(rows, cols)) {
    kernels::pack_b(rows, cols, b.data(), cols, 1, 1.0f, data.data());
  }
  // Zeros of the packed size of a (rows, cols) operand, for a loader to pack weights into in place.
  PackedMatrix(size_t rows_, size_t cols_) : rows(rows_), cols(cols_), data(kernels::packed_size(rows_, cols_)) {}
  size_t panel_stride() const { return kernels::panel_stride(rows); }

  size_t rows = 0, cols = 0;
  std::vector<float> data;  // packed_size(rows, cols)
};

}  // namespace multihead
