// Seeded weights for experiments and the toy mode: the same numbers in every build, so a seed
// named in a tutorial shows the same heatmaps everywhere. Not cryptographic, not PyTorch's stream.
#include <cmath>
#include <cstdint>

#include "multihead/attention.h"

namespace multihead {
namespace {

// splitmix64: tiny, fast, and well distributed for this purpose.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  // Uniform in [-limit, limit).
  float uniform(float limit) {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double unit = double(z >> 11) * 0x1.0p-53;  // [0, 1) with 53 random bits
    return float((2 * unit - 1) * limit);
  }

 private:
  uint64_t state_;
};

std::vector<float> uniform(SplitMix64& rng, size_t count, float limit) {
  std::vector<float> values(count);
  for (float& v : values) v = rng.uniform(limit);
  return values;
}

}  // namespace

AttentionWeights random_attention_weights(const AttentionConfig& config, uint32_t seed) {
  check_config(config);  // before allocating
  const size_t d = size_t(config.d_model), qw = size_t(config.n_heads) * config.d_head, kvw = size_t(config.n_kv_heads) * config.d_head;
  // In this order, so that standard multi-head attention (qw = kvw = d) draws what it always drew.
  SplitMix64 rng(seed);
  AttentionWeights weights;
  weights.wq = uniform(rng, d * qw, 1.0f / std::sqrt(float(d)));
  weights.wk = uniform(rng, d * kvw, 1.0f / std::sqrt(float(d)));
  weights.wv = uniform(rng, d * kvw, 1.0f / std::sqrt(float(d)));
  weights.wo = uniform(rng, qw * d, 1.0f / std::sqrt(float(qw)));
  weights.bq = uniform(rng, qw, 0.1f);
  weights.bk = uniform(rng, kvw, 0.1f);
  weights.bv = uniform(rng, kvw, 0.1f);
  weights.bo = uniform(rng, d, 0.1f);
  return weights;
}

}  // namespace multihead
