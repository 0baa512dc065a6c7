// The matrix types used throughout: Eigen, float, row-major, so a Matrix's data() is the flat
// (rows, cols) buffer that kernels and JavaScript read directly.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "multihead/kernels.h"

namespace multihead {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

// A std::vector allocator that leaves new elements uninitialized (resize() and the size
// constructor do not zero them). For buffers that are written whole before they are read: a
// loader fills every weight, and zeroing hundreds of megabytes first was most of a load's time.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }  // default-initialised: no zeroing
  template <class U, class... Args>
  void construct(U* p, Args&&... args) { ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...); }
};

// Floats that start uninitialized; see UninitializedAllocator.
using UninitializedFloats = std::vector<float, UninitializedAllocator<float>>;
// bfloat16 values (their bits) that start uninitialized.
using UninitializedHalves = std::vector<uint16_t, UninitializedAllocator<uint16_t>>;

// A right-hand GEMM operand (rows, cols), packed once into the panels kernels::gemm reads.
struct PackedMatrix {
  PackedMatrix() = default;
  explicit PackedMatrix(const Matrix& b) : rows(size_t(b.rows())), cols(size_t(b.cols())), data(kernels::packed_size(rows, cols)) {
    kernels::pack_b(rows, cols, b.data(), cols, 1, 1.0f, data.data());
  }
  // Room for a packed (rows, cols) operand, uninitialized, for a loader to pack weights into in
  // place (pack_b writes every value, the zero padding included).
  PackedMatrix(size_t rows_, size_t cols_) : rows(rows_), cols(cols_), data(kernels::packed_size(rows_, cols_)) {}
  size_t panel_stride() const { return kernels::panel_stride(rows); }

  size_t rows = 0, cols = 0;
  UninitializedFloats data;  // packed_size(rows, cols) floats, or empty when the values are bfloat16
  UninitializedHalves bf16;  // the same panels as bfloat16 (kernels::pack_b_bf16), or empty: a BF16 checkpoint's weights
  bool is_bf16() const { return !bf16.empty(); }
};

}  // namespace multihead
