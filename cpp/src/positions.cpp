// Computed positions (positions.h): Marian's sinusoidal table and T5's relative buckets.
#include "multihead/positions.h"

#include <cmath>
#include <cstdlib>

namespace multihead {

void sinusoidal_positions(int rows, int d, float* out) {
  const int half = (d + 1) / 2;  // transformers' sentinel: the sines take the extra column of an odd width
  for (int p = 0; p < rows; ++p) {
    float* row = out + size_t(p) * size_t(d);
    for (int c = 0; c < d; ++c) {
      const bool sine = c < half;
      const int pair = sine ? c : c - half;  // the angle of column 2·pair (sines) or 2·pair + 1 (cosines)
      const double angle = double(p) / std::pow(10000.0, 2.0 * double(pair) / double(d));
      row[c] = float(sine ? std::sin(angle) : std::cos(angle));
    }
  }
}

int relative_position_bucket(int relative, bool bidirectional, int num_buckets, int max_distance) {
  int bucket = 0, distance = 0;
  if (bidirectional) {
    num_buckets /= 2;
    if (relative > 0) bucket += num_buckets;
    distance = std::abs(relative);
  } else {
    distance = relative < 0 ? -relative : 0;
  }
  const int max_exact = num_buckets / 2;
  if (distance < max_exact) return bucket + distance;
  // In float32, step by step as PyTorch computes it: log(distance / max_exact) / log(max_distance /
  // max_exact) · (num_buckets − max_exact), truncated. At distance 16 of 32 buckets the exact value
  // is the integer 2, and float32's rounding of the logarithms decides which side of it lands.
  const float ratio = float(distance) / float(max_exact);
  const float scale = float(std::log(double(max_distance) / double(max_exact)));
  const float large = std::log(ratio) / scale * float(num_buckets - max_exact);
  const int bin = max_exact + int(large);
  return bucket + (bin < num_buckets - 1 ? bin : num_buckets - 1);
}

std::vector<float> relative_bias(const float* table, int heads, int n_q, int n_k, int first_query, bool bidirectional, int num_buckets,
                                 int max_distance) {
  // The bucket of every offset a pair can have, key − query from −(first_query + n_q − 1) to n_k − 1.
  const int lowest = -(first_query + n_q - 1);
  std::vector<int> buckets(size_t(n_k - lowest));
  for (size_t i = 0; i < buckets.size(); ++i) {
    buckets[i] = relative_position_bucket(lowest + int(i), bidirectional, num_buckets, max_distance);
  }
  std::vector<float> bias(size_t(heads) * size_t(n_q) * size_t(n_k));
  for (int h = 0; h < heads; ++h) {
    for (int r = 0; r < n_q; ++r) {
      float* row = bias.data() + (size_t(h) * size_t(n_q) + size_t(r)) * size_t(n_k);
      const int* offsets = buckets.data() + (-(first_query + r) - lowest);  // offsets[j]: the bucket of key j
      for (int j = 0; j < n_k; ++j) row[j] = table[size_t(offsets[j]) * size_t(heads) + size_t(h)];
    }
  }
  return bias;
}

}  // namespace multihead
