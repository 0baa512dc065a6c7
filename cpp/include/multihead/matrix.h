// The matrix types used throughout: Eigen, float, row-major, so a Matrix's data() is the flat
// (rows, cols) buffer that kernels and JavaScript read directly.
#pragma once

#include <Eigen/Core>

namespace multihead {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

}  // namespace multihead
