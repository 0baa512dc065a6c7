// Rotary position embeddings (RoPE) as Hugging Face computes them: the frequencies of
// modeling_rope_utils.py (default, "linear" and "llama3" scaling) and the rotation of
// modeling_llama.py's apply_rotary_pos_emb, whose rotate_half pairs dimension i of a head with
// dimension i + r/2, not with i + 1 (the Hub's Llama weights were permuted for that pairing).
//
// For a head of width dh whose first r dimensions rotate (r = dh, or rotary_pct·dh in GPT-NeoX),
// at position p, with θ_i = p · inv_freq[i] for i < r/2:
//   out[i]       = x[i] cos θ_i − x[i + r/2] sin θ_i
//   out[i + r/2] = x[i + r/2] cos θ_i + x[i] sin θ_i
//   out[j]       = x[j]                                  for r ≤ j < dh
// inv_freq[i] = θ_base^(−2i/r), then scaled. Computed here in double from the config: a checkpoint's
// stored rotary_emb.inv_freq buffer (which may be F16) is never read.
#pragma once

#include <vector>

#include "multihead/attention.h"

namespace multihead {

enum class RopeScaling { none, linear, llama3 };

struct RopeConfig {
  int rotary_dim = 0;        // r: how many leading dimensions of each head rotate; even, ≤ head_dim
  double theta = 10000.0;    // the base (rope_theta)
  RopeScaling scaling = RopeScaling::none;
  double factor = 1.0;       // linear: positions divided by it; llama3: low frequencies divided by it
  double low_freq_factor = 1.0;           // llama3
  double high_freq_factor = 4.0;          // llama3
  double original_max_position = 8192.0;  // llama3: original_max_position_embeddings
};

// The r/2 frequencies, scaled. Throws std::invalid_argument naming a bad field (r odd or not
// positive, θ ≤ 1, factor ≤ 0, llama3's high_freq_factor ≤ low_freq_factor, any non-finite value).
std::vector<double> rope_inv_freq(const RopeConfig& config);

// The attention's rotation step (RotateFn) for heads of width head_dim: rotates each head of x,
// row r at position first_position + r. Throws std::invalid_argument when rotary_dim > head_dim.
RotateFn rope_rotation(const RopeConfig& config, int head_dim);

}  // namespace multihead
