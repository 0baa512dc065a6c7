// attention_naive: what attention.cpp computes, written as the definition reads, in plain loops
// and doubles. No blocking, no packing, no threads, no checks: read this first.
#include <cmath>
#include <limits>

#include "multihead/attention.h"

namespace multihead {

NaiveAttention attention_naive(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                               int n_queries, int n_keys, const AttentionConfig& config, int query_position,
                               const std::vector<double>& bias, const std::vector<uint8_t>& key_mask) {
  const int n_heads = config.n_heads, d_head = config.d_head, window = config.window;
  const int group = n_heads / config.n_kv_heads;  // query heads per key/value head
  const int q_width = n_heads * d_head, kv_width = config.n_kv_heads * d_head;
  const double scale = config.score_scale();
  NaiveAttention out{std::vector<double>(size_t(n_heads) * n_queries * n_keys), std::vector<double>(size_t(n_queries) * q_width)};
  for (int i = 0; i < n_heads; ++i) {
    const int g = i / group;  // the key/value head that query head i reads
    for (int r = 0; r < n_queries; ++r) {
      double* w = &out.weights[(size_t(i) * n_queries + r) * n_keys];  // this query's row of weights
      // Scores of the keys this query may see: not after its position (causal), not before its
      // window, not masked out.
      double largest = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < n_keys; ++j) {
        const int position = query_position + r;
        const bool visible = !(config.causal && j > position) && !(window > 0 && j <= position - window) &&
                             (key_mask.empty() || key_mask[size_t(j)]);
        if (!visible) { w[j] = std::nan(""); continue; }
        double score = 0;
        for (int c = 0; c < d_head; ++c) score += q[size_t(r) * q_width + i * d_head + c] * k[size_t(j) * kv_width + g * d_head + c];
        w[j] = score * scale;
        if (config.softcap > 0) w[j] = config.softcap * std::tanh(w[j] / config.softcap);  // Gemma 2's soft cap
        w[j] += bias.empty() ? 0.0 : bias[(size_t(i) * n_queries + r) * n_keys + j];
        largest = std::max(largest, w[j]);
      }
      // Softmax over the visible keys; hidden keys get 0, and a row that sees nothing is all zeros.
      double sum = 0;
      for (int j = 0; j < n_keys; ++j) sum += std::isnan(w[j]) ? 0.0 : (w[j] = std::exp(w[j] - largest));
      for (int j = 0; j < n_keys; ++j) w[j] = std::isnan(w[j]) ? 0.0 : w[j] / sum;
      // The head's output for this query: the weighted sum of the values.
      for (int c = 0; c < d_head; ++c) {
        double o = 0;
        for (int j = 0; j < n_keys; ++j) o += w[j] * v[size_t(j) * kv_width + g * d_head + c];
        out.concat[size_t(r) * q_width + i * d_head + c] = o;
      }
    }
  }
  return out;
}

}  // namespace multihead
