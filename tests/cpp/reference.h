// Test helpers: a float64 reference of multi-head attention written with plain Eigen, random
// inputs, and comparisons that report the largest difference.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "multihead/attention.h"

namespace multihead::testing {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorD = Eigen::Matrix<double, 1, Eigen::Dynamic, Eigen::RowMajor>;

inline std::vector<float> random_values(size_t count, uint32_t seed, float limit = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-limit, limit);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

inline MatrixD to_double(const std::vector<float>& values, size_t rows, size_t cols) {
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
             values.data(), rows, cols).cast<double>();
}

struct ReferenceResult {
  std::vector<MatrixD> weights;  // h × (n, n)
  MatrixD output;                // (n, d)
};

// Softmax over the visible keys of each row; rows with no visible key are zeros.
inline MatrixD reference_softmax(const MatrixD& scores, const std::vector<bool>& visible_flat) {
  MatrixD p = MatrixD::Zero(scores.rows(), scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    double max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      if (visible_flat[i * scores.cols() + j]) max = std::max(max, scores(i, j));
    }
    if (std::isinf(max)) continue;
    double sum = 0;
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      if (visible_flat[i * scores.cols() + j]) sum += (p(i, j) = std::exp(scores(i, j) - max));
    }
    p.row(i) /= sum;
  }
  return p;
}

inline std::vector<bool> visibility(size_t n, bool causal, const std::vector<uint8_t>& key_mask) {
  std::vector<bool> visible(n * n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      visible[i * n + j] = !(causal && j > i) && (key_mask.empty() || key_mask[j]);
    }
  }
  return visible;
}

// Multi-head attention in float64, head by head, straight from the definition.
inline ReferenceResult reference_attention(const std::vector<float>& x, int n_tokens, const AttentionConfig& c,
                                           const AttentionWeights& w, const std::vector<uint8_t>& key_mask = {}) {
  const int n = n_tokens, d = c.d_model, dh = c.d_model / c.n_heads;
  const MatrixD X = to_double(x, n, d);
  auto project = [&](const std::vector<float>& W, const std::vector<float>& b) {
    MatrixD y = X * to_double(W, d, d);
    y.rowwise() += to_double(b, 1, d).row(0);
    return y;
  };
  const MatrixD Q = project(w.wq, w.bq), K = project(w.wk, w.bk), V = project(w.wv, w.bv);
  const std::vector<bool> visible = visibility(n, c.causal, key_mask);
  ReferenceResult r;
  MatrixD concat(n, d);
  for (int h = 0; h < c.n_heads; ++h) {
    const MatrixD scores = Q.middleCols(h * dh, dh) * K.middleCols(h * dh, dh).transpose() / std::sqrt(double(dh));
    r.weights.push_back(reference_softmax(scores, visible));
    concat.middleCols(h * dh, dh) = r.weights.back() * V.middleCols(h * dh, dh);
  }
  r.output = concat * to_double(w.wo, d, d);
  r.output.rowwise() += to_double(w.bo, 1, d).row(0);
  return r;
}

template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
  return (a.template cast<double>() - b.template cast<double>()).cwiseAbs().maxCoeff();
}

inline Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> head_matrix(
    const std::vector<float>& per_head, int head, int n) {
  return {per_head.data() + size_t(head) * n * n, n, n};
}

}  // namespace multihead::testing
