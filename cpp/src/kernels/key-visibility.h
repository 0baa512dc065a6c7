// Which keys a query may see, shared by the scores kernels so scalar and SIMD mask identically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace multihead::kernels {

// Keys [0, visible_key_end) may be visible to query i; causal attention stops at the diagonal.
inline size_t visible_key_end(size_t i, size_t n, bool causal) { return causal && i + 1 < n ? i + 1 : n; }

// Writes -infinity over the hidden scores of one query row: keys past `end`, and keys whose mask is 0.
inline void hide_masked_scores(float* row, size_t n, size_t end, const uint8_t* key_mask) {
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  for (size_t j = end; j < n; ++j) row[j] = kHidden;
  if (key_mask) {
    for (size_t j = 0; j < end; ++j) {
      if (!key_mask[j]) row[j] = kHidden;
    }
  }
}

}  // namespace multihead::kernels
