// MultiHeadAttention: validation, then the four steps (project, attend per head, concatenate,
// project out) expressed as kernel calls, with the rotation after the projection and the score
// bias as optional steps. No SIMD here: kernels.h hides which kernels run. The definition the
// steps compute is attention_naive (attention_naive.cpp).
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

AttentionConfig multi_head_config(int d_model, int n_heads, bool causal) {
  if (n_heads >= 1 && d_model % n_heads != 0) {
    throw std::invalid_argument("d_model (" + std::to_string(d_model) + ") must be divisible by n_heads (" + std::to_string(n_heads) +
                                ") for heads of d_model / n_heads; give d_head to choose another width");
  }
  return {.d_model = d_model, .n_heads = n_heads, .n_kv_heads = n_heads, .d_head = n_heads >= 1 ? d_model / n_heads : 0, .causal = causal};
}

void check_config(const AttentionConfig& c) {
  const auto at_least_one = [](const char* name, int v) {
    if (v < 1) throw std::invalid_argument(std::string(name) + " must be at least 1, got " + std::to_string(v));
  };
  at_least_one("d_model", c.d_model);
  if (c.d_model > kMaxDModel) {
    throw LimitError("d_model is " + std::to_string(c.d_model) + ", above the limit of " + std::to_string(kMaxDModel));
  }
  at_least_one("n_heads", c.n_heads);
  at_least_one("n_kv_heads", c.n_kv_heads);
  at_least_one("d_head", c.d_head);
  if (double(c.n_heads) * c.d_head > kMaxDModel) {
    throw LimitError("n_heads × d_head is " + std::to_string(c.n_heads) + " × " + std::to_string(c.d_head) +
                     ", above the limit of " + std::to_string(kMaxDModel));
  }
  if (!(std::isfinite(c.softcap) && c.softcap >= 0)) {
    throw std::invalid_argument("softcap must be 0 (none) or a finite positive number, got " + std::to_string(c.softcap));
  }
  if (!(std::isfinite(c.scale) && c.scale >= 0)) {
    throw std::invalid_argument("scale must be 0 (1/√d_head) or a finite positive number, got " + std::to_string(c.scale));
  }
  if (c.window < 0 || (c.window > 0 && !c.causal)) {
    throw std::invalid_argument("window must be 0 (none) or, with a causal mask, at least 1, got " + std::to_string(c.window) +
                                (c.causal ? "" : " without a causal mask"));
  }
  if (c.n_heads % c.n_kv_heads != 0) {
    throw std::invalid_argument("n_heads (" + std::to_string(c.n_heads) + ") must be a multiple of n_kv_heads (" +
                                std::to_string(c.n_kv_heads) + ")");
  }
}

namespace {

const AttentionConfig& checked(const AttentionConfig& c) {
  check_config(c);
  return c;
}

// A weight matrix (rows, cols) given as a flat vector, checked and packed.
PackedMatrix matrix(const char* name, const std::vector<float>& w, int rows, int cols, const char* shape) {
  check_size(name, w.size(), size_t(rows) * size_t(cols), std::string(shape) + " = " + std::to_string(rows) + " × " + std::to_string(cols));
  check_finite(name, w.data(), w.size());
  return PackedMatrix(ConstMatrixMap(w.data(), rows, cols));
}

Vector row(const char* name, const std::vector<float>& b, int size, const char* what) {
  check_size(name, b.size(), size_t(size), what);
  check_finite(name, b.data(), b.size());
  return Eigen::Map<const Vector>(b.data(), size);
}

// Query rows attended together: their scores and weights, 2 × 32 × n floats, stay in cache from
// the scores GEMM through softmax to the weighted sum.
constexpr size_t kRowBlock = 32;

// Bytes one forward pass allocates: Q and the concatenation (n_q, h·dh), K and V (n_k, kv·dh), the
// output (n_q, d); the (n_q, n_k) score and weight buffers of every head for a trace, or otherwise
// one block of score rows per thread; every key/value head's packed K and V (n_k, dh each,
// padded). Computed in double so a huge n cannot overflow the check.
double forward_bytes(double n_q, double n_k, const AttentionConfig& c, bool keep_trace) {
  const double h = c.n_heads, kv = c.n_kv_heads, dh = c.d_head, d = c.d_model;
  const double squares = keep_trace ? 2 * h * n_q * n_k : thread_count() * std::min(n_q, double(kRowBlock)) * n_k;
  const double panel = kernels::kPanelWidth;
  const double packed = kv * (std::ceil(n_k / panel) * panel * dh + std::ceil(dh / panel) * panel * n_k);
  return 4.0 * (2 * n_q * h * dh + 2 * n_k * kv * dh + n_q * d + squares + packed);
}

// Sizes a trace buffer that may be reused. Growing frees the old buffer first: resize() would copy
// it and hold both at once, doubling the peak of the largest buffers in the engine.
void grow(std::vector<float>& buffer, size_t size) {
  if (size > buffer.capacity()) std::vector<float>().swap(buffer);
  buffer.resize(size);
}

// Writes -infinity over the scores of one query row that it may not see: keys before `begin` (a
// sliding window), keys from `end` on (the causal mask) and keys whose mask is 0. PyTorch hides
// them the same way.
void hide_scores(float* row, size_t n_k, size_t begin, size_t end, const uint8_t* key_mask) {
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  std::fill(row, row + begin, kHidden);
  std::fill(row + end, row + n_k, kHidden);
  if (key_mask) {
    for (size_t j = begin; j < end; ++j) {
      if (!key_mask[j]) row[j] = kHidden;
    }
  }
}

// A bias for kernels::gemm: its values, or nullptr for none.
const float* bias_of(const Vector& b) { return b.size() ? b.data() : nullptr; }

// The cause every attention overflow gives: nothing else feeds the pass.
constexpr const char* kCause = "the input or the weights are too large";

// The first head with a value that is not finite in m (rows, heads·dh), head i in columns
// [i·dh, (i+1)·dh). Only for messages, after a check of all of m failed.
size_t head_with_overflow(const Matrix& m, size_t dh) {
  const size_t h = size_t(m.cols()) / dh;
  for (size_t i = 0; i < h; ++i) {
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      if (!std::isfinite(largest_magnitude(m.data() + r * m.cols() + i * dh, dh))) return i;
    }
  }
  return h;
}

// Checks a per-head intermediate (Q, K, V, the concatenated head outputs), naming its first bad
// head on failure ("key/value head" for K and V when they are grouped).
void check_heads(const Matrix& m, size_t dh, const char* what, const char* head = "head") {
  check_fits(m.data(), size_t(m.size()), [&] {
    return std::string("attention: ") + what + " of " + head + " " + str(head_with_overflow(m, dh));
  }, kCause);
}

// RMS-normalises each head of m (rows, heads·dh) in place: row r's head i is dh contiguous floats,
// so the whole matrix is (rows·heads) rows of dh. As the model's norms do (model.cpp), first checks
// no value is so large that a head's sum of squares could overflow (|x| ≤ √(FLT_MAX / 2·dh)):
// past it the norm would silently give zeros.
void normalize_heads(Matrix& m, size_t dh, const std::vector<float>& weight, float eps, const char* what) {
  const double limit = std::sqrt(double(std::numeric_limits<float>::max()) / (2.0 * double(dh)));
  if (largest_magnitude(m.data(), size_t(m.size())) > limit) {
    throw OverflowError(std::string("attention: the mean square in the norm of ") + what + " overflowed float32 (" + kCause + ")");
  }
  kernels::active_kernels().rms_norm(size_t(m.size()) / dh, dh, m.data(), dh, weight.data(), eps, m.data(), dh);
  check_heads(m, dh, what);
}

// Replaces each switched-off head's output, its columns of concat (n_q, h·dh), as ablation (h)
// says: zeros, or its mean. In a bidirectional layer the mean is over every position. In a causal
// one, the output at position t becomes the mean over positions 0..t: a running mean, so no
// position reads the tokens after it, and a cached step continues it from `sum`, the sum of every
// head's output over the cached positions (first_position of them). `sum` (h·dh) is advanced over
// the new rows, before any is replaced, row by row in the one order a whole run adds them in, so
// a writing and a run of its text replace a head alike. The mean of finite values is finite, so
// the ablated concatenation needs no new check.
void ablate(Matrix& concat, size_t dh, const Ablation* ablation, bool causal, int first_position, Vector& sum) {
  const size_t h = size_t(concat.cols()) / dh;
  for (Eigen::Index r = 0; r < concat.rows(); ++r) {
    sum += concat.row(r);
    if (!ablation || !causal) continue;
    const float count = float(first_position + r + 1);
    for (size_t i = 0; i < h; ++i) {
      if (ablation[i] != Ablation::mean) continue;
      for (size_t c = i * dh; c < (i + 1) * dh; ++c) concat(r, Eigen::Index(c)) = sum[Eigen::Index(c)] / count;
    }
  }
  if (!ablation) return;
  for (size_t i = 0; i < h; ++i) {
    auto columns = concat.middleCols(Eigen::Index(i * dh), Eigen::Index(dh));
    if (ablation[i] == Ablation::zero) {
      columns.setZero();
    } else if (ablation[i] == Ablation::mean && !causal) {
      const Vector mean = columns.colwise().mean();
      columns.rowwise() = mean;
    }
  }
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(const AttentionConfig& config, AttentionWeights w)
    : config_(checked(config)),
      wq_(matrix("wq", w.wq, config.d_model, q_width(), "d_model × n_heads·d_head")),
      wk_(matrix("wk", w.wk, config.d_model, kv_width(), "d_model × n_kv_heads·d_head")),
      wv_(matrix("wv", w.wv, config.d_model, kv_width(), "d_model × n_kv_heads·d_head")),
      wo_(matrix("wo", w.wo, q_width(), config.d_model, "n_heads·d_head × d_model")),
      bq_(row("bq", w.bq, q_width(), "n_heads·d_head")),
      bk_(row("bk", w.bk, kv_width(), "n_kv_heads·d_head")),
      bv_(row("bv", w.bv, kv_width(), "n_kv_heads·d_head")),
      bo_(row("bo", w.bo, config.d_model, "d_model")) {}

namespace {

void check_packed(const char* name, const PackedMatrix& m, int rows, int cols) {
  const size_t values = m.is_bf16() ? m.bf16.size() + m.data.size() : m.data.size();  // one of the two, whole
  if (m.rows != size_t(rows) || m.cols != size_t(cols) || values != kernels::packed_size(m.rows, m.cols)) {
    throw std::invalid_argument(std::string(name) + " is packed as " + str(m.rows) + " × " + str(m.cols) + ", expected " +
                                std::to_string(rows) + " × " + std::to_string(cols));
  }
}

void check_bias(const char* name, const Vector& b, int size) {
  if (b.size() != 0 && b.size() != size) {
    throw std::invalid_argument(std::string(name) + " has " + str(size_t(b.size())) + " values, expected " + std::to_string(size) + " or none");
  }
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(const AttentionConfig& config, PackedAttentionWeights w)
    : config_(checked(config)),
      wq_(std::move(w.wq)),
      wk_(std::move(w.wk)),
      wv_(std::move(w.wv)),
      wo_(std::move(w.wo)),
      bq_(std::move(w.bq)),
      bk_(std::move(w.bk)),
      bv_(std::move(w.bv)),
      bo_(std::move(w.bo)) {
  check_packed("wq", wq_, config_.d_model, q_width());
  check_packed("wk", wk_, config_.d_model, kv_width());
  check_packed("wv", wv_, config_.d_model, kv_width());
  check_packed("wo", wo_, q_width(), config_.d_model);
  check_bias("bq", bq_, q_width());
  check_bias("bk", bk_, kv_width());
  check_bias("bv", bv_, kv_width());
  check_bias("bo", bo_, config_.d_model);
}

void MultiHeadAttention::set_head_norms(std::vector<float> q_weight, std::vector<float> k_weight, float eps) {
  const size_t dh = size_t(config_.d_head);
  if ((!q_weight.empty() || !k_weight.empty()) && (q_weight.size() != dh || k_weight.size() != dh)) {
    throw std::invalid_argument("head norm weights have " + str(q_weight.size()) + " and " + str(k_weight.size()) +
                                " values, expected d_head = " + str(dh) + " each");
  }
  if (!(eps > 0 && std::isfinite(eps))) throw std::invalid_argument("head norm eps must be a finite positive number, got " + std::to_string(eps));
  q_norm_ = std::move(q_weight);
  k_norm_ = std::move(k_weight);
  head_norm_eps_ = eps;
}

void MultiHeadAttention::check_input(const AttentionInput& in, size_t q_size, size_t kv_size, size_t mask_size, bool keep_trace) const {
  const auto check_count = [](const char* name, int n) {
    if (n < 1) throw std::invalid_argument(std::string(name) + " must be at least 1, got " + std::to_string(n));
    if (n > kMaxTokens) throw LimitError(std::string(name) + " is " + std::to_string(n) + ", above the limit of " + std::to_string(kMaxTokens));
  };
  if (in.memory) {  // the model's own buffers, as a cache's
    const KvCache& m = *in.memory;
    if (in.cache || in.n_keys != m.length || m.length > m.capacity() || m.k.cols() != kv_width() || m.v.cols() != kv_width()) {
      throw std::logic_error("a pass over projected keys and values must read all of them, without a cache");
    }
  }
  if (in.cache) {  // the model's own buffers: checked for consistency, as a caller's mistake
    const KvCache& c = *in.cache;
    if (in.x_kv != in.x_q || in.query_position != c.length || in.n_keys != c.length + in.n_queries) {
      throw std::logic_error("a cached attention pass must read its keys and values from its queries' rows, at the cache's length");
    }
    if (c.k.cols() != kv_width() || c.v.cols() != kv_width() || c.v.rows() != c.k.rows()) {
      throw std::logic_error("the KV cache is not (capacity, kv·dh) = (" + std::to_string(c.k.rows()) + ", " + std::to_string(kv_width()) + ")");
    }
    if (in.n_keys > c.capacity()) {
      throw LimitError(std::to_string(in.n_keys) + " positions are more than the KV cache holds (" + std::to_string(c.capacity()) + ")");
    }
  }
  // Self-attention reads its keys from its queries' rows: so does a cached pass, after the cache's.
  const bool self = in.x_q == in.x_kv && (in.n_queries == in.n_keys || in.cache) && !in.memory;
  check_count(self ? "n_tokens" : "n_queries", in.n_queries);
  if (!self || in.cache) check_count("n_keys", in.n_keys);
  if (in.query_position < 0 || in.query_position > kMaxTokens) {
    throw std::invalid_argument("query_position must be from 0 to " + std::to_string(kMaxTokens) + ", got " + std::to_string(in.query_position));
  }
  const double bytes = forward_bytes(in.n_queries, in.n_keys, config_, keep_trace);
  if (bytes > double(kMaxForwardBytes)) {
    throw LimitError("a forward pass with " + (self ? "n_tokens = " + std::to_string(in.n_queries)
                                                    : "n_queries = " + std::to_string(in.n_queries) + " and n_keys = " + std::to_string(in.n_keys)) +
                     " needs " + std::to_string(std::llround(bytes / (1 << 20))) + " MiB, above the limit of " +
                     str(kMaxForwardBytes >> 20) + " MiB");
  }
  const std::string d = std::to_string(config_.d_model);
  if (self) {
    check_size("x", q_size, size_t(in.n_queries) * config_.d_model, "n_tokens × d_model = " + std::to_string(in.n_queries) + " × " + d);
  } else {
    check_size("x_q", q_size, size_t(in.n_queries) * config_.d_model, "n_queries × d_model = " + std::to_string(in.n_queries) + " × " + d);
    if (!in.memory) {
      check_size("x_kv", kv_size, size_t(in.n_keys) * config_.d_model, "n_keys × d_model = " + std::to_string(in.n_keys) + " × " + d);
      check_finite("x_kv", in.x_kv, kv_size);
    }
  }
  check_finite(self ? "x" : "x_q", in.x_q, q_size);
  if (mask_size) check_size("key_mask", mask_size, size_t(in.n_keys), self ? "n_tokens" : "n_keys");
}

AttentionInput MultiHeadAttention::self(const float* x, int n_tokens, const std::vector<uint8_t>& key_mask, const Ablation* ablation) const {
  return {.x_q = x, .n_queries = n_tokens, .x_kv = x, .n_keys = n_tokens,
          .key_mask = key_mask.empty() ? nullptr : key_mask.data(), .ablation = ablation};
}

AttentionInput MultiHeadAttention::general(const std::vector<float>& x_q, int n_queries, const std::vector<float>& x_kv,
                                         int n_keys, int query_position, const std::vector<uint8_t>& key_mask) {
  return {.x_q = x_q.data(), .n_queries = n_queries, .x_kv = x_kv.data(), .n_keys = n_keys, .query_position = query_position,
          .key_mask = key_mask.empty() ? nullptr : key_mask.data()};
}

AttentionTrace MultiHeadAttention::forward(const std::vector<float>& x, int n_tokens,
                                           const std::vector<uint8_t>& key_mask) const {
  AttentionTrace trace;
  forward_into(x, n_tokens, key_mask, trace);
  return trace;
}

AttentionTrace MultiHeadAttention::forward(const Matrix& x, const std::vector<uint8_t>& key_mask) const {
  AttentionTrace trace;
  const int n = x.rows() > kMaxTokens ? kMaxTokens + 1 : int(x.rows());
  checked_run(self(x.data(), n, key_mask, nullptr), size_t(x.size()), size_t(x.size()), key_mask.size(), true, trace);
  return trace;
}

void MultiHeadAttention::forward_into(const std::vector<float>& x, int n_tokens, const std::vector<uint8_t>& key_mask,
                                      AttentionTrace& trace) const {
  checked_run(self(x.data(), n_tokens, key_mask, nullptr), x.size(), x.size(), key_mask.size(), true, trace);
}

void MultiHeadAttention::forward_into(const Matrix& x, AttentionTrace& trace, const Ablation* ablation) const {
  const int n = x.rows() > kMaxTokens ? kMaxTokens + 1 : int(x.rows());
  checked_run(self(x.data(), n, {}, ablation), size_t(x.size()), size_t(x.size()), 0, true, trace);
}

void MultiHeadAttention::forward_into(const AttentionInput& input, AttentionTrace& trace) const {
  // The rows are as many as the counts say: this entry trusts its pointers (the model's own buffers).
  const auto rows = [&](int n) { return size_t(std::max(n, 0)) * size_t(config_.d_model); };
  checked_run(input, rows(input.n_queries), rows(input.cache ? input.n_queries : input.memory ? 0 : input.n_keys), 0, true, trace);
}

Matrix MultiHeadAttention::forward_output(const std::vector<float>& x, int n_tokens,
                                          const std::vector<uint8_t>& key_mask) const {
  AttentionTrace trace;
  checked_run(self(x.data(), n_tokens, key_mask, nullptr), x.size(), x.size(), key_mask.size(), false, trace);
  return std::move(trace.output);
}

void MultiHeadAttention::forward_into(const std::vector<float>& x_q, int n_queries, const std::vector<float>& x_kv, int n_keys,
                                      int query_position, const std::vector<uint8_t>& key_mask, AttentionTrace& trace) const {
  checked_run(general(x_q, n_queries, x_kv, n_keys, query_position, key_mask), x_q.size(), x_kv.size(), key_mask.size(), true, trace);
}

Matrix MultiHeadAttention::forward_output(const std::vector<float>& x_q, int n_queries, const std::vector<float>& x_kv, int n_keys,
                                          int query_position, const std::vector<uint8_t>& key_mask) const {
  AttentionTrace trace;
  checked_run(general(x_q, n_queries, x_kv, n_keys, query_position, key_mask), x_q.size(), x_kv.size(), key_mask.size(), false, trace);
  return std::move(trace.output);
}

void MultiHeadAttention::checked_run(const AttentionInput& in, size_t q_size, size_t kv_size, size_t mask_size, bool keep_trace,
                                     AttentionTrace& t) const {
  check_input(in, q_size, kv_size, mask_size, keep_trace);
  run(in, t, keep_trace);
}

void MultiHeadAttention::run(const AttentionInput& in, AttentionTrace& t, bool keep_trace) const {
  const auto& k = kernels::active_kernels();
  const size_t n_q = size_t(in.n_queries), n_k = size_t(in.n_keys), d = size_t(config_.d_model);
  const size_t h = size_t(config_.n_heads), kv = size_t(config_.n_kv_heads), dh = size_t(config_.d_head);
  const size_t qw = h * dh, kvw = kv * dh, group = h / kv;
  t.n_queries = in.n_queries;
  t.n_keys = in.n_keys;
  t.d_model = config_.d_model;
  t.n_heads = config_.n_heads;
  t.n_kv_heads = config_.n_kv_heads;
  t.d_head = config_.d_head;
  const char* kv_name = kv == h ? "head" : "key/value head";

  // 1. Project: queries from x_q for all query heads at once, keys and values from x_kv for all
  // key/value heads: (n_q, h·dh), (n_k, kv·dh), (n_k, kv·dh). With a cache, the new rows' keys and
  // values only, at positions from the cache's length, and n_k counts the cached keys too.
  KvCache* cache = in.cache;
  const size_t new_keys = cache ? n_q : in.memory ? 0 : n_k, key_position = cache ? size_t(cache->length) : 0;
  t.q.resize(n_q, qw);
  t.k.resize(new_keys, kvw);
  t.v.resize(new_keys, kvw);
  multiply(n_q, in.x_q, d, wq_, bias_of(bq_), t.q.data(), qw);
  multiply(new_keys, in.x_kv, d, wk_, bias_of(bk_), t.k.data(), kvw);
  multiply(new_keys, in.x_kv, d, wv_, bias_of(bv_), t.v.data(), kvw);
  check_heads(t.q, dh, "the queries");
  check_heads(t.k, dh, "the keys", kv_name);
  check_heads(t.v, dh, "the values", kv_name);

  // 1b. Normalise each head's queries and keys, when the layer has head norms (Qwen3, Gemma 3).
  if (!q_norm_.empty()) {
    normalize_heads(t.q, dh, q_norm_, head_norm_eps_, "the queries");
    normalize_heads(t.k, dh, k_norm_, head_norm_eps_, "the keys");
  }
  // 1c. Rotate the queries and the keys, each row at its position (RoPE), when the layer has a
  // rotation; a trace keeps them as they were before it too.
  if (rotate_ && keep_trace) {
    t.q_unrotated = t.q;
    t.k_unrotated = t.k;
  } else {
    t.q_unrotated.resize(0, 0);
    t.k_unrotated.resize(0, 0);
  }
  if (rotate_) {
    rotate_(t.q, config_.n_heads, in.query_position);
    rotate_(t.k, config_.n_kv_heads, int(key_position));
    check_heads(t.q, dh, "the rotated queries");
    check_heads(t.k, dh, "the rotated keys", kv_name);
  }

  // The keys and values the heads read: the new rows, or, with a cache, every cached row after
  // the new ones are stored (their row stride is kv·dh either way).
  const float* all_k = in.memory ? in.memory->k.data() : t.k.data();
  const float* all_v = in.memory ? in.memory->v.data() : t.v.data();
  if (cache) {
    cache->k.middleRows(Eigen::Index(key_position), Eigen::Index(n_q)) = t.k;
    cache->v.middleRows(Eigen::Index(key_position), Eigen::Index(n_q)) = t.v;
    all_k = cache->k.data();
    all_v = cache->v.data();
  }

  // 2-3. Attention in each query head, reading its columns of Q and its key/value head's columns
  // of K and V in place, and writing its output straight into its columns of the concatenation.
  // A trace keeps every head's (n_q, n_k) scores and weights; without one, each thread reuses one
  // block of score rows.
  const size_t blocks = (n_q + kRowBlock - 1) / kRowBlock;
  const size_t key_floats = kernels::packed_size(dh, n_k), value_floats = kernels::packed_size(n_k, dh);
  std::vector<float> keys(kv * key_floats);      // scale·K_gᵀ per key/value head, (dh, n_k), packed
  std::vector<float> values(kv * value_floats);  // V_g per key/value head, (n_k, dh), packed
  const size_t scratch = std::min(n_q, kRowBlock) * n_k;  // one thread's block of score rows, without a trace
  grow(t.scores, keep_trace ? h * n_q * n_k : size_t(thread_count()) * scratch);
  if (keep_trace) grow(t.weights, h * n_q * n_k);
  t.concat.resize(n_q, qw);
  const float scale = float(config_.score_scale());
  parallel_for(kv, 2 * n_k * kvw, [&](size_t g, size_t) {
    kernels::pack_b(dh, n_k, all_k + g * dh, 1, kvw, scale, keys.data() + g * key_floats);
    kernels::pack_b(n_k, dh, all_v + g * dh, kvw, 1, 1.0f, values.data() + g * value_floats);
  });
  // Query r is at position query_position + r; with a causal mask it sees the keys up to there,
  // and with a window only the last `window` of them.
  const auto visible_keys = [&](size_t r) { return config_.causal ? std::min(n_k, size_t(in.query_position) + r + 1) : n_k; };
  const size_t window = size_t(config_.window);
  const auto first_key = [&](size_t r) { return window && visible_keys(r) > window ? visible_keys(r) - window : 0; };
  // One task per head and block of query rows: their scores and weights, 2 × 32 × n_k floats, stay
  // in cache from the scores GEMM through softmax to the weighted sum. Causal blocks differ in
  // cost, so tasks are taken one at a time rather than dealt out in equal shares.
  parallel_for(h * blocks, 2 * n_q * n_k * dh, [&](size_t task, size_t thread) {
    const size_t i = task / blocks, r0 = task % blocks * kRowBlock, g = i / group;
    const size_t rows = std::min(kRowBlock, n_q - r0);
    // Rows [r0, r0 + rows) of head i's scores and weights, (rows, n_k), row stride n_k.
    float* s = keep_trace ? t.scores.data() + i * n_q * n_k + r0 * n_k : t.scores.data() + thread * scratch;
    float* p = keep_trace ? t.weights.data() + i * n_q * n_k + r0 * n_k : s;
    // Causal: keys after the block's last query are hidden from all of it, so are not computed.
    const size_t seen = visible_keys(r0 + rows - 1);
    k.gemm(rows, seen, dh, t.q.data() + r0 * qw + i * dh, qw, keys.data() + g * key_floats, kernels::panel_stride(dh), nullptr, s, n_k);
    if (config_.softcap > 0) {  // cap·tanh(score/cap), before any bias or mask, as Gemma 2 applies it
      const float cap = float(config_.softcap);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t j = 0; j < seen; ++j) s[r * n_k + j] = cap * std::tanh(s[r * n_k + j] / cap);
      }
    }
    if (in.score_bias) {
      const float* bias = in.score_bias + i * n_q * n_k + r0 * n_k;
      for (size_t r = 0; r < rows; ++r) {
        for (size_t j = 0; j < seen; ++j) s[r * n_k + j] += bias[r * n_k + j];
      }
    }
    // Checked before hide_scores writes -infinity: a score that overflowed to -infinity would
    // otherwise become weight 0 unnoticed. Each query's causal window is checked, not the keys
    // the block computed beyond it, so the answer does not depend on the block size.
    const auto describe = [&] { return "attention: the scores of head " + str(i); };
    for (size_t r = 0; r < rows; ++r) {
      check_fits(s + r * n_k + first_key(r0 + r), visible_keys(r0 + r) - first_key(r0 + r), describe, kCause);
    }
    for (size_t r = 0; r < rows; ++r) hide_scores(s + r * n_k, n_k, first_key(r0 + r), visible_keys(r0 + r), in.key_mask);
    k.softmax(rows, n_k, s, n_k, p, n_k);
    // Hidden keys have weight exactly 0, so the product may stop at `seen`.
    k.gemm(rows, dh, seen, p, n_k, values.data() + g * value_floats, kernels::panel_stride(n_k), nullptr,
           t.concat.data() + r0 * qw + i * dh, qw);
  });
  // Finite scores give weights in [0, 1] summing to 1, but a weighted sum of values near the
  // float32 limit can still round past it.
  check_heads(t.concat, dh, "the output");
  KvCache* sums = cache ? cache : in.memory;  // where a generation's running sum of the head outputs lives
  if (in.ablation || sums) {
    Vector sum = sums ? sums->output_sum : Vector::Zero(Eigen::Index(qw));
    ablate(t.concat, dh, in.ablation, config_.causal || config_.ordered_queries, in.query_position, sum);
    if (sums) sums->next_output_sum = std::move(sum);
  }
  if (in.patch) t.concat.middleCols(Eigen::Index(in.patch_head) * Eigen::Index(dh), Eigen::Index(dh)) =
      in.patch->middleCols(Eigen::Index(in.patch_head) * Eigen::Index(dh), Eigen::Index(dh));
  // 4. Final linear projection of the concatenated heads.
  t.output.resize(n_q, d);
  multiply(n_q, t.concat.data(), qw, wo_, bias_of(bo_), t.output.data(), d);
  check_fits(t.output.data(), n_q * d, [] { return std::string("attention: the output projection"); }, kCause);
}

KvCache MultiHeadAttention::project_memory(const Matrix& x_kv) const {
  const int n = x_kv.rows() > kMaxTokens ? kMaxTokens + 1 : int(x_kv.rows());
  if (n < 1 || n > kMaxTokens) throw LimitError("x_kv has " + str(size_t(x_kv.rows())) + " rows; it must have from 1 to " + std::to_string(kMaxTokens));
  check_size("x_kv", size_t(x_kv.size()), size_t(n) * size_t(config_.d_model), "n_keys × d_model");
  check_finite("x_kv", x_kv.data(), size_t(x_kv.size()));
  const size_t d = size_t(config_.d_model), kvw = size_t(kv_width()), dh = size_t(config_.d_head);
  KvCache m;
  m.k.resize(n, Eigen::Index(kvw));
  m.v.resize(n, Eigen::Index(kvw));
  multiply(size_t(n), x_kv.data(), d, wk_, bias_of(bk_), m.k.data(), kvw);
  multiply(size_t(n), x_kv.data(), d, wv_, bias_of(bv_), m.v.data(), kvw);
  const char* kv_name = config_.n_kv_heads == config_.n_heads ? "head" : "key/value head";
  check_heads(m.k, dh, "the keys", kv_name);
  check_heads(m.v, dh, "the values", kv_name);
  m.length = n;
  m.output_sum = Vector::Zero(Eigen::Index(q_width()));
  return m;
}

Matrix MultiHeadAttention::project_heads(const float* concat_row) const {
  const size_t h = size_t(config_.n_heads), dh = size_t(config_.d_head), qw = size_t(q_width()), d = size_t(config_.d_model);
  Matrix spread = Matrix::Zero(Eigen::Index(h), Eigen::Index(qw));  // row i: head i's columns, zeros elsewhere
  for (size_t i = 0; i < h; ++i) std::copy(concat_row + i * dh, concat_row + (i + 1) * dh, spread.data() + i * qw + i * dh);
  Matrix out = Matrix(Eigen::Index(h), Eigen::Index(d));
  multiply(h, spread.data(), qw, wo_, nullptr, out.data(), d);
  return out;
}

}  // namespace multihead
