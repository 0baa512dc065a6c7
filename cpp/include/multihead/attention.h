// Multi-head self-attention: the layer, its weights, and the trace of one forward pass.
//
// Dimension letters used in shape comments: n = tokens, d = d_model, h = heads, dh = d / h.
// Weight convention (fixed across the project): Q = X·W_q + b_q with W_q of shape (d_in, d_out),
// row-major; likewise K, V and the output projection W_o. Head i uses columns [i·dh, (i+1)·dh).
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
#include <stdexcept>
#include <string>
#include <vector>

#include "multihead/matrix.h"

namespace multihead {

// Beyond this many tokens forward() refuses to run (the n×n per-head matrices grow quadratically).
constexpr int kMaxTokens = 4096;
// Upper bound on the memory one forward() may allocate, checked before allocating.
constexpr size_t kMaxForwardBytes = size_t{1} << 30;
// Upper bound on d_model: four (d, d) weight matrices must fit comfortably in a 2 GB WASM heap.
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
// or at every position its output's mean over the positions (mean). Ablating a head changes
// only what enters W_o: the head's scores and weights are still computed and traced.
enum class Ablation : uint8_t { none = 0, zero = 1, mean = 2 };

struct AttentionConfig {
  int d_model = 0;
  int n_heads = 0;
  bool causal = false;
};

struct AttentionWeights {
  std::vector<float> wq, wk, wv, wo;  // (d, d) each, (in, out), row-major
  std::vector<float> bq, bk, bv, bo;  // (d) each
};

// Throws if the configuration is unusable: d_model or n_heads below 1, d_model above kMaxDModel,
// or d_model not divisible by n_heads.
void check_config(const AttentionConfig& config);

// Deterministic initialisation from a seed: the same weights on every platform and build.
// Matrices are uniform in ±1/√d (as PyTorch's Linear default), biases uniform in ±0.1.
AttentionWeights random_attention_weights(const AttentionConfig& config, uint32_t seed);

// Everything one forward pass computed, for drawing and for teaching.
struct AttentionTrace {
  int n_tokens = 0, d_model = 0, n_heads = 0;
  Matrix q, k, v;              // (n, d): head i is columns [i·dh, (i+1)·dh)
  std::vector<float> scores;   // (h, n, n): scale·Q_i·K_iᵀ, -infinity where masked
  std::vector<float> weights;  // (h, n, n): softmax of scores, row = query, column = key
  Matrix concat;               // (n, d): head outputs side by side
  Matrix output;               // (n, d): concat·W_o + b_o
};

class ModelLoader;

class MultiHeadAttention {
 public:
  MultiHeadAttention(const AttentionConfig& config, AttentionWeights weights);

  // x (n, d) row-major, flattened; key_mask (n) with nonzero = visible, or empty for all visible.
  // Every forward throws OverflowError if Q, K, V, a head's scores (those of each query's causal
  // window, checked before masking so an overflow to -infinity is not taken for a hidden key),
  // a head's output or the output is not finite. Heads are counted from 0.
  AttentionTrace forward(const std::vector<float>& x, int n_tokens,
                         const std::vector<uint8_t>& key_mask = {}) const;
  // x (n, d): one token per row.
  AttentionTrace forward(const Matrix& x, const std::vector<uint8_t>& key_mask = {}) const;
  // forward() writing into `trace` and reusing its buffers: a caller that keeps one trace across
  // calls of one size allocates nothing more (fresh memory is slow to touch in a browser).
  // The score and weight buffers are reallocated only to grow, the (n, d) matrices when n changes.
  void forward_into(const std::vector<float>& x, int n_tokens, const std::vector<uint8_t>& key_mask,
                    AttentionTrace& trace) const;
  // The same, x (n, d) one token per row; `ablation`, if not null, holds one Ablation per head
  // (n_heads), and the trace's concatenation and output are the ablated ones.
  void forward_into(const Matrix& x, AttentionTrace& trace, const Ablation* ablation = nullptr) const;
  // The same computation keeping no intermediates: returns the output (n, d) only.
  Matrix forward_output(const std::vector<float>& x, int n_tokens,
                        const std::vector<uint8_t>& key_mask = {}) const;

  const AttentionConfig& config() const { return config_; }
  int d_head() const { return config_.d_model / config_.n_heads; }

 private:
  friend class ModelLoader;  // builds zero layers and packs checkpoint weights into them in place
  // A layer of zero weights, checked config; ModelLoader fills wq_ … bo_ as the data arrives.
  explicit MultiHeadAttention(const AttentionConfig& config);

  // Validates, then runs; without keep_trace only the output is meaningful.
  void checked_run(const float* x, size_t x_size, int n_tokens, const std::vector<uint8_t>& key_mask,
                   bool keep_trace, AttentionTrace& t, const Ablation* ablation = nullptr) const;
  void check_input(const float* x, size_t x_size, int n_tokens, const std::vector<uint8_t>& key_mask,
                   bool keep_trace) const;
  void run(const float* x, int n, const uint8_t* key_mask, AttentionTrace& t, bool keep_trace,
           const Ablation* ablation) const;

  AttentionConfig config_;
  PackedMatrix wq_, wk_, wv_, wo_;  // (d, d), (in, out), packed for kernels::gemm
  Vector bq_, bk_, bv_, bo_;  // (d)
};

}  // namespace multihead
