// Test helpers: a float64 reference of multi-head attention (attention_naive, with the projections
// in float64), random inputs, and comparisons that report the largest difference.
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
  std::vector<MatrixD> weights;  // h × (n_q, n_k)
  MatrixD output;                // (n_q, d)
};

inline std::vector<double> flat(const MatrixD& m) { return std::vector<double>(m.data(), m.data() + m.size()); }

// Attention in float64: the projections with Eigen, then the definition itself, attention_naive
// (cpp/src/attention_naive.cpp), then the output projection. x_q (n_q, d), x_kv (n_k, d).
inline ReferenceResult reference_attention(const std::vector<float>& x_q, int n_q, const std::vector<float>& x_kv, int n_k,
                                           const AttentionConfig& c, const AttentionWeights& w, int query_position = 0,
                                           const std::vector<uint8_t>& key_mask = {}, const std::vector<double>& bias = {}) {
  const int d = c.d_model, qw = c.n_heads * c.d_head, kvw = c.n_kv_heads * c.d_head;
  const auto project = [&](const std::vector<float>& x, int n, const std::vector<float>& W, const std::vector<float>& b, int width) {
    MatrixD y = to_double(x, n, d) * to_double(W, d, width);
    y.rowwise() += to_double(b, 1, width).row(0);
    return flat(y);
  };
  const NaiveAttention a = attention_naive(project(x_q, n_q, w.wq, w.bq, qw), project(x_kv, n_k, w.wk, w.bk, kvw),
                                           project(x_kv, n_k, w.wv, w.bv, kvw), n_q, n_k, c, query_position, bias, key_mask);
  ReferenceResult r;
  for (int h = 0; h < c.n_heads; ++h) {
    r.weights.push_back(Eigen::Map<const MatrixD>(a.weights.data() + size_t(h) * n_q * n_k, n_q, n_k));
  }
  r.output = Eigen::Map<const MatrixD>(a.concat.data(), n_q, qw) * to_double(w.wo, qw, d);
  r.output.rowwise() += to_double(w.bo, 1, d).row(0);
  return r;
}

// Self-attention: x (n, d) as both the queries' and the keys' rows.
inline ReferenceResult reference_attention(const std::vector<float>& x, int n_tokens, const AttentionConfig& c,
                                           const AttentionWeights& w, const std::vector<uint8_t>& key_mask = {}) {
  return reference_attention(x, n_tokens, x, n_tokens, c, w, 0, key_mask);
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
