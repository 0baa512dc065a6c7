// MultiHeadAttention: validation, then the four steps (project, attend per head, concatenate,
// project out) expressed as kernel calls. No SIMD here: kernels.h hides which kernels run.
#include "multihead/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "multihead/kernels.h"
#include "multihead/parallel.h"

namespace multihead {
namespace {

std::string str(size_t v) { return std::to_string(v); }

void check_size(const char* name, size_t got, size_t want, const std::string& expected) {
  if (got != want) {
    throw std::invalid_argument(std::string(name) + " has " + str(got) + " values, expected " +
                                expected + " = " + str(want));
  }
}

void check_finite(const char* name, const float* values, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (!std::isfinite(values[i])) {
      throw std::invalid_argument(std::string(name) + "[" + str(i) + "] is " +
                                  (std::isnan(values[i]) ? "NaN" : "infinite") + ", expected a finite number");
    }
  }
}

}  // namespace

float largest_magnitude(const float* values, size_t count) {
  // With the sign bit cleared, the unsigned order of float bit patterns is the order of
  // magnitudes, with infinity above every finite float and NaN above infinity. An integer maximum
  // does not depend on the order it is taken in, so the compiler may vectorise this loop (it may
  // not reorder a float reduction): the check costs a small fraction of the GEMM it follows.
  uint32_t largest = 0;
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    largest = std::max(largest, bits & 0x7fffffffu);
  }
  float out;
  std::memcpy(&out, &largest, sizeof out);
  return out;
}

void check_config(const AttentionConfig& c) {
  if (c.d_model < 1) throw std::invalid_argument("d_model must be at least 1, got " + std::to_string(c.d_model));
  if (c.d_model > kMaxDModel) {
    throw LimitError("d_model is " + std::to_string(c.d_model) + ", above the limit of " +
                            std::to_string(kMaxDModel));
  }
  if (c.n_heads < 1) throw std::invalid_argument("n_heads must be at least 1, got " + std::to_string(c.n_heads));
  if (c.d_model % c.n_heads != 0) {
    throw std::invalid_argument("d_model (" + std::to_string(c.d_model) + ") must be divisible by n_heads (" +
                                std::to_string(c.n_heads) + ")");
  }
}

namespace {

const AttentionConfig& checked(const AttentionConfig& c) {
  check_config(c);
  return c;
}

PackedMatrix square(const char* name, const std::vector<float>& w, int d) {
  check_size(name, w.size(), size_t(d) * d, "d_model × d_model = " + std::to_string(d) + " × " + std::to_string(d));
  check_finite(name, w.data(), w.size());
  return PackedMatrix(ConstMatrixMap(w.data(), d, d));
}

Vector row(const char* name, const std::vector<float>& b, int d) {
  check_size(name, b.size(), size_t(d), "d_model");
  check_finite(name, b.data(), b.size());
  return Eigen::Map<const Vector>(b.data(), d);
}

// Query rows attended together: their scores and weights, 2 × 32 × n floats, stay in cache from
// the scores GEMM through softmax to the weighted sum.
constexpr size_t kRowBlock = 32;

// Bytes one forward pass allocates: Q, K, V, concat, output (n, d); the (n, n) score and weight
// buffers of every head for a trace, or otherwise one block of score rows per thread; every head's
// packed K and V (n, d/h each, padded). Computed in double so a huge n cannot overflow the check.
double forward_bytes(double n, double d, double h, bool keep_trace) {
  const double squares = keep_trace ? 2 * h * n * n : thread_count() * std::min(n, double(kRowBlock)) * n;
  const double panel = kernels::kPanelWidth;
  const double packed = h * (std::ceil(n / panel) * panel * (d / h) + std::ceil(d / h / panel) * panel * n);
  return 4.0 * (5 * n * d + squares + packed);
}

// Sizes a trace buffer that may be reused. Growing frees the old buffer first: resize() would copy
// it and hold both at once, doubling the peak of the largest buffers in the engine.
void grow(std::vector<float>& buffer, size_t size) {
  if (size > buffer.capacity()) std::vector<float>().swap(buffer);
  buffer.resize(size);
}

// Writes -infinity over the scores of one query row that it may not see: keys from `end` on (the
// causal mask) and keys whose mask is 0. PyTorch hides them the same way.
void hide_scores(float* row, size_t n, size_t end, const uint8_t* key_mask) {
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  std::fill(row + end, row + n, kHidden);
  if (key_mask) {
    for (size_t j = 0; j < end; ++j) {
      if (!key_mask[j]) row[j] = kHidden;
    }
  }
}

// The cause every attention overflow gives: nothing else feeds the pass.
constexpr const char* kCause = "the input or the weights are too large";

// The first head with a value that is not finite in m (n, d), head i in columns [i·dh, (i+1)·dh).
// Only for messages, after a check of all of m failed.
size_t head_with_overflow(const Matrix& m, size_t dh) {
  const size_t h = size_t(m.cols()) / dh;
  for (size_t i = 0; i < h; ++i) {
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      if (!std::isfinite(largest_magnitude(m.data() + r * m.cols() + i * dh, dh))) return i;
    }
  }
  return h;
}

// Checks a per-head (n, d) intermediate (Q, K, V, the concatenated head outputs), naming its
// first bad head on failure.
void check_heads(const Matrix& m, size_t dh, const char* what) {
  check_fits(m.data(), size_t(m.size()), [&] {
    return std::string("attention: ") + what + " of head " + str(head_with_overflow(m, dh));
  }, kCause);
}

// Replaces one head's output, columns [first, first + width) of concat (n, d), as `how` says.
// The mean of finite values is finite, so the ablated concatenation needs no new check.
void ablate(Matrix& concat, size_t first, size_t width, Ablation how) {
  auto columns = concat.middleCols(Eigen::Index(first), Eigen::Index(width));
  if (how == Ablation::zero) {
    columns.setZero();
  } else if (how == Ablation::mean) {
    const Vector mean = columns.colwise().mean();
    columns.rowwise() = mean;
  }
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(const AttentionConfig& config, AttentionWeights w)
    : config_(checked(config)),
      wq_(square("wq", w.wq, config.d_model)),
      wk_(square("wk", w.wk, config.d_model)),
      wv_(square("wv", w.wv, config.d_model)),
      wo_(square("wo", w.wo, config.d_model)),
      bq_(row("bq", w.bq, config.d_model)),
      bk_(row("bk", w.bk, config.d_model)),
      bv_(row("bv", w.bv, config.d_model)),
      bo_(row("bo", w.bo, config.d_model)) {}

MultiHeadAttention::MultiHeadAttention(const AttentionConfig& config)
    : config_(checked(config)),
      wq_(size_t(config.d_model), size_t(config.d_model)),
      wk_(size_t(config.d_model), size_t(config.d_model)),
      wv_(size_t(config.d_model), size_t(config.d_model)),
      wo_(size_t(config.d_model), size_t(config.d_model)),
      bq_(Vector::Zero(config.d_model)),
      bk_(Vector::Zero(config.d_model)),
      bv_(Vector::Zero(config.d_model)),
      bo_(Vector::Zero(config.d_model)) {}

void MultiHeadAttention::check_input(const float* x, size_t x_size, int n_tokens,
                                     const std::vector<uint8_t>& key_mask, bool keep_trace) const {
  if (n_tokens < 1) throw std::invalid_argument("n_tokens must be at least 1, got " + std::to_string(n_tokens));
  if (n_tokens > kMaxTokens) {
    throw LimitError("n_tokens is " + std::to_string(n_tokens) + ", above the limit of " +
                            std::to_string(kMaxTokens));
  }
  const double bytes = forward_bytes(n_tokens, config_.d_model, config_.n_heads, keep_trace);
  if (bytes > double(kMaxForwardBytes)) {
    throw LimitError("a forward pass with n_tokens = " + std::to_string(n_tokens) + " needs " +
                            std::to_string(std::llround(bytes / (1 << 20))) + " MiB, above the limit of " +
                            str(kMaxForwardBytes >> 20) + " MiB");
  }
  check_size("x", x_size, size_t(n_tokens) * config_.d_model,
             "n_tokens × d_model = " + std::to_string(n_tokens) + " × " + std::to_string(config_.d_model));
  check_finite("x", x, x_size);
  if (!key_mask.empty()) check_size("key_mask", key_mask.size(), size_t(n_tokens), "n_tokens");
}

AttentionTrace MultiHeadAttention::forward(const std::vector<float>& x, int n_tokens,
                                           const std::vector<uint8_t>& key_mask) const {
  AttentionTrace trace;
  checked_run(x.data(), x.size(), n_tokens, key_mask, true, trace);
  return trace;
}

AttentionTrace MultiHeadAttention::forward(const Matrix& x, const std::vector<uint8_t>& key_mask) const {
  AttentionTrace trace;
  checked_run(x.data(), x.size(), x.rows() > kMaxTokens ? kMaxTokens + 1 : int(x.rows()), key_mask, true, trace);
  return trace;
}

void MultiHeadAttention::forward_into(const std::vector<float>& x, int n_tokens, const std::vector<uint8_t>& key_mask,
                                      AttentionTrace& trace) const {
  checked_run(x.data(), x.size(), n_tokens, key_mask, true, trace);
}

void MultiHeadAttention::forward_into(const Matrix& x, AttentionTrace& trace, const Ablation* ablation) const {
  checked_run(x.data(), size_t(x.size()), x.rows() > kMaxTokens ? kMaxTokens + 1 : int(x.rows()), {}, true, trace, ablation);
}

Matrix MultiHeadAttention::forward_output(const std::vector<float>& x, int n_tokens,
                                          const std::vector<uint8_t>& key_mask) const {
  AttentionTrace trace;
  checked_run(x.data(), x.size(), n_tokens, key_mask, false, trace);
  return std::move(trace.output);
}

void MultiHeadAttention::checked_run(const float* x, size_t x_size, int n_tokens, const std::vector<uint8_t>& key_mask,
                                     bool keep_trace, AttentionTrace& t, const Ablation* ablation) const {
  check_input(x, x_size, n_tokens, key_mask, keep_trace);
  run(x, n_tokens, key_mask.empty() ? nullptr : key_mask.data(), t, keep_trace, ablation);
}

void MultiHeadAttention::run(const float* x, int n_tokens, const uint8_t* key_mask, AttentionTrace& t,
                             bool keep_trace, const Ablation* ablation) const {
  const auto& k = kernels::active_kernels();
  const size_t n = n_tokens, d = config_.d_model, h = config_.n_heads, dh = d_head();
  t.n_tokens = n_tokens;
  t.d_model = config_.d_model;
  t.n_heads = config_.n_heads;

  // 1. Project the input into queries, keys and values for all heads at once: (n, d) each.
  t.q.resize(n, d);
  t.k.resize(n, d);
  t.v.resize(n, d);
  parallel_gemm(k.gemm, n, d, d, x, d, wq_.data.data(), wq_.panel_stride(), bq_.data(), t.q.data(), d);
  parallel_gemm(k.gemm, n, d, d, x, d, wk_.data.data(), wk_.panel_stride(), bk_.data(), t.k.data(), d);
  parallel_gemm(k.gemm, n, d, d, x, d, wv_.data.data(), wv_.panel_stride(), bv_.data(), t.v.data(), d);
  check_heads(t.q, dh, "the queries");
  check_heads(t.k, dh, "the keys");
  check_heads(t.v, dh, "the values");

  // 2-3. Attention in each head, reading its columns of Q, K, V in place and writing its output
  // straight into its columns of the concatenation. A trace keeps every head's (n, n) scores and
  // weights; without one, each thread reuses one block of score rows.
  const size_t blocks = (n + kRowBlock - 1) / kRowBlock;
  const size_t key_floats = kernels::packed_size(dh, n), value_floats = kernels::packed_size(n, dh);
  std::vector<float> keys(h * key_floats);      // scale·K_iᵀ per head, (dh, n), packed
  std::vector<float> values(h * value_floats);  // V_i per head, (n, dh), packed
  const size_t scratch = std::min(n, kRowBlock) * n;  // one thread's block of score rows, without a trace
  grow(t.scores, keep_trace ? h * n * n : size_t(thread_count()) * scratch);
  if (keep_trace) grow(t.weights, h * n * n);
  t.concat.resize(n, d);
  const float scale = 1.0f / std::sqrt(float(dh));
  parallel_for(h, 2 * n * d, [&](size_t i, size_t) {
    kernels::pack_b(dh, n, t.k.data() + i * dh, 1, d, scale, keys.data() + i * key_floats);
    kernels::pack_b(n, dh, t.v.data() + i * dh, d, 1, 1.0f, values.data() + i * value_floats);
  });
  // One task per head and block of query rows: their scores and weights, 2 × 32 × n floats, stay in
  // cache from the scores GEMM through softmax to the weighted sum. Causal blocks differ in cost,
  // so tasks are taken one at a time rather than dealt out in equal shares.
  parallel_for(h * blocks, 2 * n * n * d, [&](size_t task, size_t thread) {
    const size_t i = task / blocks, r0 = task % blocks * kRowBlock;
    const size_t rows = std::min(kRowBlock, n - r0);
    // Rows [r0, r0 + rows) of head i's scores and weights, (rows, n), row stride n.
    float* s = keep_trace ? t.scores.data() + i * n * n + r0 * n : t.scores.data() + thread * scratch;
    float* p = keep_trace ? t.weights.data() + i * n * n + r0 * n : s;
    // Causal: keys after the block's last query are hidden from all of it, so are not computed.
    const size_t seen = config_.causal ? r0 + rows : n;
    k.gemm(rows, seen, dh, t.q.data() + r0 * d + i * dh, d, keys.data() + i * key_floats, kernels::panel_stride(dh), nullptr, s, n);
    // Checked before hide_scores writes -infinity: a score that overflowed to -infinity would
    // otherwise become weight 0 unnoticed. Each query's causal window is checked, not the keys
    // the block computed beyond it, so the answer does not depend on the block size.
    const auto describe = [&] { return "attention: the scores of head " + str(i); };
    if (config_.causal) {
      for (size_t r = 0; r < rows; ++r) check_fits(s + r * n, r0 + r + 1, describe, kCause);
    } else {
      check_fits(s, rows * n, describe, kCause);
    }
    for (size_t r = 0; r < rows; ++r) hide_scores(s + r * n, n, config_.causal ? r0 + r + 1 : n, key_mask);
    k.softmax(rows, n, s, n, p, n);
    // Hidden keys have weight exactly 0, so the product may stop at `seen`.
    k.gemm(rows, dh, seen, p, n, values.data() + i * value_floats, kernels::panel_stride(n), nullptr,
           t.concat.data() + r0 * d + i * dh, d);
  });
  // Finite scores give weights in [0, 1] summing to 1, but a weighted sum of values near the
  // float32 limit can still round past it.
  check_heads(t.concat, dh, "the output");
  if (ablation) {
    for (size_t i = 0; i < h; ++i) ablate(t.concat, i * dh, dh, ablation[i]);
  }
  // 4. Final linear projection of the concatenated heads.
  t.output.resize(n, d);
  parallel_gemm(k.gemm, n, d, d, t.concat.data(), d, wo_.data.data(), wo_.panel_stride(), bo_.data(), t.output.data(), d);
  check_fits(t.output.data(), n * d, [] { return std::string("attention: the output projection"); }, kCause);
}

}  // namespace multihead
