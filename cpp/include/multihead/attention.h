// Multi-head attention of any shape: the layer, its weights, the trace of one forward pass, and
// attention_naive, the definition in plain loops.
//
// Dimension letters used in shape comments: n_q = queries, n_k = keys (n_q = n_k = n for
// self-attention), d = d_model, h = query heads, kv = key/value heads (h a multiple of kv), dh =
// d_head. Query head i reads key/value head i / (h / kv): grouped-query attention when kv < h,
// multi-query when kv = 1, and standard multi-head attention when kv = h and dh = d / h.
// Weight convention (fixed across the project): Q = X·W_q + b_q with W_q of shape (d_in, d_out),
// row-major; likewise K, V and the output projection W_o. Query head i uses columns
// [i·dh, (i+1)·dh) of Q; key/value head g columns [g·dh, (g+1)·dh) of K and V.
//
// Every bad configuration or input throws std::invalid_argument or LimitError naming the
// parameter and its value; limits are checked before anything is allocated. Finite inputs and
// weights can still overflow float32 inside the pass (weights of 3e38, or x of 1e20, whose scores
// pass 3.4e38): that throws OverflowError naming the step, rather than return weights that do not
// sum to 1.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "multihead/matrix.h"

namespace multihead {

// Beyond this many queries or keys forward() refuses to run (the n_q×n_k per-head matrices grow
// quadratically).
constexpr int kMaxTokens = 4096;
// Upper bound on the memory one forward() may allocate, checked before allocating.
constexpr size_t kMaxForwardBytes = size_t{1} << 30;
// Upper bound on d_model, and on the width of all query heads (h·dh): four such weight matrices
// must fit comfortably in a 2 GB WASM heap.
constexpr int kMaxDModel = 4096;

// A size or value beyond one of the engine's limits (tokens, d_model, memory per pass, a config
// field's range). A std::length_error, so callers may catch either; its own type tells the engine's
// limits apart from the standard library's length_error ("vector"), which means out of memory.
class LimitError : public std::length_error {
 public:
  using std::length_error::length_error;
};

// A step of a forward pass computed a value float32 cannot hold (infinite, or NaN from ∞ − ∞)
// from finite inputs and weights. what() is "<where>: <step> overflowed float32 (<cause>)".
class OverflowError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The largest magnitude among values (count): infinity or NaN if one of them is not finite.
float largest_magnitude(const float* values, size_t count);

// Throws OverflowError(describe() + " overflowed float32 (" + cause + ")") if one of values
// (count) is infinite or NaN. describe() names where and which step, e.g. "attention: the scores
// of head 1"; it runs only on failure, so a passing check builds no string. Forward passes check
// each intermediate with this after the kernel that made it: kernels never validate.
template <class Describe>
void check_fits(const float* values, size_t count, Describe&& describe, const char* cause) {
  if (!std::isfinite(largest_magnitude(values, count))) {
    throw OverflowError(describe() + " overflowed float32 (" + cause + ")");
  }
}

// What a head contributes to the output projection (its columns of the concatenation): its own
// output (none), zeros (zero: as a 0 in Hugging Face's head_mask, which scales the head's weights),
// or its output's mean (mean): over every position in a bidirectional layer, and at position t
// over positions 0..t in a causal one, so that no position reads a later token and a step of
// generation replaces the head as a run of the whole text does. That mean does nothing at
// position 0 and little at early positions. Ablating a head changes only what enters W_o: the
// head's scores and weights are still computed and traced.
enum class Ablation : uint8_t { none = 0, zero = 1, mean = 2 };

struct AttentionConfig {
  int d_model = 0;     // d: the width of the input and of the output
  int n_heads = 0;     // h: query heads
  int n_kv_heads = 0;  // kv: key/value heads; h must be a multiple of kv
  int d_head = 0;      // dh: the width of each head's queries, keys and values
  bool causal = false;  // a query sees the keys at its own position and before
  int window = 0;       // with causal: a query at position p sees only keys p − window + 1 … p (0: all)
  double scale = 0;     // the scores' factor: 0 for 1/√d_head (Gemma 3 reads query_pre_attn_scalar^−½)
  double softcap = 0;   // scores become softcap·tanh(score/softcap) after scaling (Gemma 2's); 0 for none
  // The queries are a causal sequence though no key is masked (a decoder's cross-attention): a
  // switched-off head's mean runs over the queries so far, as in a causal layer (Ablation).
  bool ordered_queries = false;

  // The factor the scores are multiplied by.
  double score_scale() const { return scale > 0 ? scale : 1.0 / std::sqrt(double(d_head)); }
};

// Standard multi-head attention: as many key/value heads as query heads, each d / h wide (throws
// if h does not divide d). Write any other shape with designated initialisers.
AttentionConfig multi_head_config(int d_model, int n_heads, bool causal);

struct AttentionWeights {
  std::vector<float> wq;      // (d, h·dh), (in, out), row-major
  std::vector<float> wk, wv;  // (d, kv·dh)
  std::vector<float> wo;      // (h·dh, d)
  std::vector<float> bq;      // (h·dh)
  std::vector<float> bk, bv;  // (kv·dh)
  std::vector<float> bo;      // (d)
};

// The same weights already packed for the kernels, as a model's loader builds them in place: moved
// into a layer, not copied. A missing bias (an architecture without one) is an empty Vector.
struct PackedAttentionWeights {
  PackedMatrix wq, wk, wv, wo;  // shapes as AttentionWeights'
  Vector bq, bk, bv, bo;
};

// Throws if the configuration is unusable: a size below 1, d_model or h·dh above kMaxDModel, h
// not a multiple of kv, or a window without a causal mask.
void check_config(const AttentionConfig& config);

// Deterministic initialisation from a seed: the same weights on every platform and build.
// Matrices are uniform in ±1/√fan_in (as PyTorch's Linear default), biases uniform in ±0.1. A
// configuration of standard multi-head attention gets the same numbers it always had.
AttentionWeights random_attention_weights(const AttentionConfig& config, uint32_t seed);

// One layer's keys and values of every position so far, for generation (model.h's Generation):
// the keys as the scores use them (normalised and rotated, when the layer does), each key/value
// head once. Rows [0, length) hold positions 0 … length − 1; the matrices are allocated for
// `capacity` positions up front. A cached pass writes its new rows after `length` and leaves
// `length` to its caller, which advances every layer's together once the whole pass succeeded.
struct KvCache {
  Matrix k, v;     // (capacity, kv·dh)
  int length = 0;  // positions filled
  // (h·dh): each head's output, before any ablation, summed over positions [0, length), the
  // running sum a switched-off head's mean continues (Ablation::mean). A cached pass writes the sum
  // after its rows to next_output_sum; its caller makes that current as it advances `length`.
  Vector output_sum, next_output_sum;
  int capacity() const { return int(k.rows()); }
};

// Everything one forward pass computed, for drawing and for teaching.
struct AttentionTrace {
  int n_queries = 0, n_keys = 0, d_model = 0, n_heads = 0, n_kv_heads = 0, d_head = 0;
  Matrix q;                    // (n_q, h·dh): query head i is columns [i·dh, (i+1)·dh); normalised and rotated, if the layer does
  Matrix k, v;                 // (n_k, kv·dh): key/value head g is columns [g·dh, (g+1)·dh); k as q.
                               // In a cached pass (KvCache) only the new rows: the cache holds the rest
  Matrix q_unrotated;          // q before the rotation (after any head norm); empty when the layer does not rotate
  Matrix k_unrotated;          // k likewise
  std::vector<float> scores;   // (h, n_q, n_k): scale·Q_i·K_gᵀ + bias, -infinity where masked
  std::vector<float> weights;  // (h, n_q, n_k): softmax of scores, row = query, column = key
  Matrix concat;               // (n_q, h·dh): head outputs side by side
  Matrix output;               // (n_q, d): concat·W_o + b_o

  // The key/value head query head i reads.
  int kv_head(int head) const { return head / (n_heads / n_kv_heads); }
  // One head's part, as (rows, dh) or (n_q, n_k) maps into the trace: valid while it lives.
  auto queries(int head) const { return q.middleCols(Eigen::Index(head) * d_head, d_head); }              // (n_q, dh)
  auto keys(int head) const { return k.middleCols(Eigen::Index(kv_head(head)) * d_head, d_head); }         // (n_k, dh)
  auto values(int head) const { return v.middleCols(Eigen::Index(kv_head(head)) * d_head, d_head); }       // (n_k, dh)
  // Before the rotation: the same as queries() and keys() when the layer does not rotate.
  auto queries_before_rotation(int head) const {
    return (q_unrotated.size() ? q_unrotated : q).middleCols(Eigen::Index(head) * d_head, d_head);  // (n_q, dh)
  }
  auto keys_before_rotation(int head) const {
    return (k_unrotated.size() ? k_unrotated : k).middleCols(Eigen::Index(kv_head(head)) * d_head, d_head);  // (n_k, dh)
  }
  auto head_output(int head) const { return concat.middleCols(Eigen::Index(head) * d_head, d_head); }    // (n_q, dh)
  ConstMatrixMap head_weights(int head) const { return {weights.data() + size_t(head) * n_queries * n_keys, n_queries, n_keys}; }
  ConstMatrixMap head_scores(int head) const { return {scores.data() + size_t(head) * n_queries * n_keys, n_queries, n_keys}; }
};

// The first extension point, the step after the projection: rotates x (n, heads·dh), the queries
// or the keys, in place, its row r being at position first_position + r (RoPE). Empty: no rotation.
using RotateFn = std::function<void(Matrix& x, int heads, int first_position)>;

// What one forward pass reads besides the weights. Self-attention passes the same rows twice.
struct AttentionInput {
  const float* x_q = nullptr;   // (n_q, d) row-major: what the queries are projected from
  int n_queries = 0;
  const float* x_kv = nullptr;  // (n_k, d) row-major: what the keys and values are projected from
  int n_keys = 0;
  // The position of the first query; key j is at position j. With a causal mask, query r sees the
  // keys at positions up to query_position + r: positions, not indices, so a step of generation
  // (one query after n_k − 1 cached keys) is masked as the whole text would be.
  int query_position = 0;
  const uint8_t* key_mask = nullptr;    // (n_k): nonzero = visible; or null, every key visible
  const float* score_bias = nullptr;    // the second extension point: (h, n_q, n_k) added to the scaled scores; or null
  const Ablation* ablation = nullptr;   // (h), or null: see Ablation
  // Activation patching: head patch_head's output (its columns of the concatenation) becomes its
  // columns of `patch` (n_q, h·dh), another run's, after any ablation; or patch_head -1, none.
  int patch_head = -1;
  const Matrix* patch = nullptr;
  // A KV cache, or null. With one, x_kv must be x_q: the new rows' keys and values go into the
  // cache at positions cache->length …, the queries are at those positions (query_position must be
  // cache->length), and they attend over every cached key: n_keys = cache->length + n_queries.
  KvCache* cache = nullptr;
  // Keys and values projected already, or null: a decoder's cross-attention reads the encoder's,
  // projected once per source (MultiHeadAttention::project_memory). With them, x_kv is not read,
  // n_keys must be memory->length, and the trace's k and v are empty; the running sum of the
  // head outputs continues in memory->output_sum as a cache's does, the queries being at
  // query_position (a decoder's target positions: no key is masked by it).
  KvCache* memory = nullptr;
};

// The definition, in plain loops and doubles: for each query head i and its key/value head
// g = i / (h / kv), weights_i = softmax(cap(Q_i·K_gᵀ·scale) + bias_i) over the keys it may see
// (the config's causal mask and window; cap is its soft cap, if any), and out_i = weights_i·V_g.
// q (n_q, h·dh), k and v (n_k, kv·dh), bias (h, n_q, n_k) or empty, key_mask (n_k) or empty. It is
// what a learner reads first and what the tests check the fast path against; it checks nothing
// and is not used to compute.
struct NaiveAttention {
  std::vector<double> weights;  // (h, n_q, n_k)
  std::vector<double> concat;   // (n_q, h·dh)
};
NaiveAttention attention_naive(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                               int n_queries, int n_keys, const AttentionConfig& config, int query_position,
                               const std::vector<double>& bias = {},
                               const std::vector<uint8_t>& key_mask = {});

class MultiHeadAttention {
 public:
  MultiHeadAttention(const AttentionConfig& config, AttentionWeights weights);
  // From packed weights (a checkpoint's): their shapes are checked, their values are not.
  MultiHeadAttention(const AttentionConfig& config, PackedAttentionWeights weights);

  // Self-attention: x (n, d) row-major, flattened; key_mask (n) with nonzero = visible, or empty
  // for all visible. Every forward throws OverflowError if Q, K, V, a head's scores (those of each
  // query's causal window, checked before masking so an overflow to -infinity is not taken for a
  // hidden key), a head's output or the output is not finite. Heads are counted from 0.
  AttentionTrace forward(const std::vector<float>& x, int n_tokens,
                         const std::vector<uint8_t>& key_mask = {}) const;
  // x (n, d): one token per row.
  AttentionTrace forward(const Matrix& x, const std::vector<uint8_t>& key_mask = {}) const;
  // forward() writing into `trace` and reusing its buffers: a caller that keeps one trace across
  // calls of one size allocates nothing more (fresh memory is slow to touch in a browser).
  // The score and weight buffers are reallocated only to grow, the matrices when a size changes.
  void forward_into(const std::vector<float>& x, int n_tokens, const std::vector<uint8_t>& key_mask,
                    AttentionTrace& trace) const;
  // The same, x (n, d) one token per row; `ablation`, if not null, holds one Ablation per head
  // (n_heads), and the trace's concatenation and output are the ablated ones.
  void forward_into(const Matrix& x, AttentionTrace& trace, const Ablation* ablation = nullptr) const;
  // The general pass: queries and keys from their own rows, at their positions (AttentionInput).
  // Its pointers are trusted to hold n_q and n_k rows (and key_mask n_k values): callers own them.
  void forward_into(const AttentionInput& input, AttentionTrace& trace) const;
  // The general pass from untrusted vectors, checked as self-attention is: queries from x_q
  // (n_queries, d) at positions query_position, query_position + 1, …; keys and values from x_kv
  // (n_keys, d) at positions 0, 1, …; key_mask (n_keys) or empty.
  void forward_into(const std::vector<float>& x_q, int n_queries, const std::vector<float>& x_kv, int n_keys,
                    int query_position, const std::vector<uint8_t>& key_mask, AttentionTrace& trace) const;
  // The same computation keeping no intermediates: returns the output (n, d) only.
  Matrix forward_output(const std::vector<float>& x, int n_tokens,
                        const std::vector<uint8_t>& key_mask = {}) const;
  // The general pass keeping no intermediates: returns the output (n_queries, d) only.
  Matrix forward_output(const std::vector<float>& x_q, int n_queries, const std::vector<float>& x_kv, int n_keys,
                        int query_position, const std::vector<uint8_t>& key_mask = {}) const;

  // The keys and values of x_kv (n, d), projected as a pass projects them, held for passes that
  // read them as AttentionInput::memory: length = capacity = n. Throws as forward does for a bad
  // size or an overflow.
  KvCache project_memory(const Matrix& x_kv) const;

  // Sets the step after the projection (RotateFn); an empty function removes it.
  void set_rotation(RotateFn rotate) { rotate_ = std::move(rotate); }
  // Sets RMS norms of each head's queries and keys, applied before the rotation: weights (d_head)
  // each (Gemma's 1 + w already added). Empty weights remove them. Throws if a size is wrong.
  void set_head_norms(std::vector<float> q_weight, std::vector<float> k_weight, float eps);

  // Each head's output at one position through its slice of the output projection, without the
  // bias: row i (d) is concat_row's head-i columns times rows [i·dh, (i+1)·dh) of W_o. The rows sum
  // to the output there, less the bias. concat_row (h·dh) is a trace's row of concat.
  Matrix project_heads(const float* concat_row) const;
  // b_o (d), or null for a layer without one.
  const float* output_bias() const { return bo_.size() ? bo_.data() : nullptr; }

  const AttentionConfig& config() const { return config_; }
  int d_head() const { return config_.d_head; }
  int q_width() const { return config_.n_heads * config_.d_head; }    // h·dh
  int kv_width() const { return config_.n_kv_heads * config_.d_head; }  // kv·dh

 private:
  // Validates, then runs; without keep_trace only the output is meaningful.
  // q_size and kv_size: the floats given as x_q and x_kv; mask_size: the key mask's, or 0 for none.
  void checked_run(const AttentionInput& in, size_t q_size, size_t kv_size, size_t mask_size, bool keep_trace,
                   AttentionTrace& t) const;
  void check_input(const AttentionInput& in, size_t q_size, size_t kv_size, size_t mask_size, bool keep_trace) const;
  void run(const AttentionInput& in, AttentionTrace& t, bool keep_trace) const;
  AttentionInput self(const float* x, int n_tokens, const std::vector<uint8_t>& key_mask, const Ablation* ablation) const;
  static AttentionInput general(const std::vector<float>& x_q, int n_queries, const std::vector<float>& x_kv, int n_keys,
                              int query_position, const std::vector<uint8_t>& key_mask);

  AttentionConfig config_;
  PackedMatrix wq_;        // (d, h·dh), (in, out), packed for kernels::gemm
  PackedMatrix wk_, wv_;   // (d, kv·dh)
  PackedMatrix wo_;        // (h·dh, d)
  Vector bq_;              // (h·dh), or empty: no bias
  Vector bk_, bv_;         // (kv·dh), or empty
  Vector bo_;              // (d), or empty
  RotateFn rotate_;        // empty: no rotation
  std::vector<float> q_norm_, k_norm_;  // (dh) each, or empty: no head norms
  float head_norm_eps_ = 0;
};

}  // namespace multihead
