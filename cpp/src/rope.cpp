// RoPE's frequencies and rotation (see rope.h).
#include "multihead/rope.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace multihead {
namespace {

void require(bool ok, const std::string& what, double value) {
  if (!ok) throw std::invalid_argument("RoPE " + what + ", got " + std::to_string(value));
}

// modeling_rope_utils.py's _compute_llama3_parameters: wavelengths longer than
// original/low_freq_factor are divided by factor, shorter than original/high_freq_factor kept,
// and those between blend the two by how many wavelengths fit in the original context.
double llama3(double inv_freq, const RopeConfig& c) {
  const double wavelength = 2 * std::acos(-1.0) / inv_freq;
  if (wavelength < c.original_max_position / c.high_freq_factor) return inv_freq;
  if (wavelength > c.original_max_position / c.low_freq_factor) return inv_freq / c.factor;
  const double smooth = (c.original_max_position / wavelength - c.low_freq_factor) / (c.high_freq_factor - c.low_freq_factor);
  return (1 - smooth) * inv_freq / c.factor + smooth * inv_freq;
}

}  // namespace

std::vector<double> rope_inv_freq(const RopeConfig& c) {
  require(c.rotary_dim > 0 && c.rotary_dim % 2 == 0, "rotary dimensions must be a positive even number", c.rotary_dim);
  require(std::isfinite(c.theta) && c.theta > 1, "theta must be a finite number above 1", c.theta);
  if (c.scaling != RopeScaling::none) require(std::isfinite(c.factor) && c.factor > 0, "scaling factor must be a finite positive number", c.factor);
  if (c.scaling == RopeScaling::llama3) {
    require(std::isfinite(c.low_freq_factor) && c.low_freq_factor > 0, "low_freq_factor must be a finite positive number", c.low_freq_factor);
    require(std::isfinite(c.high_freq_factor) && c.high_freq_factor > c.low_freq_factor,
            "high_freq_factor must be finite and above low_freq_factor", c.high_freq_factor);
    require(std::isfinite(c.original_max_position) && c.original_max_position > 0,
            "original_max_position_embeddings must be a finite positive number", c.original_max_position);
  }
  std::vector<double> inv_freq(size_t(c.rotary_dim / 2));
  for (size_t i = 0; i < inv_freq.size(); ++i) {
    const double f = std::pow(c.theta, -2.0 * double(i) / c.rotary_dim);
    inv_freq[i] = c.scaling == RopeScaling::linear ? f / c.factor : c.scaling == RopeScaling::llama3 ? llama3(f, c) : f;
  }
  return inv_freq;
}

RotateFn rope_rotation(const RopeConfig& config, int head_dim) {
  require(config.rotary_dim <= head_dim, "rotary dimensions must be at most head_dim (" + std::to_string(head_dim) + ")", config.rotary_dim);
  std::vector<double> inv_freq = rope_inv_freq(config);
  return [inv_freq = std::move(inv_freq), head_dim](Matrix& x, int heads, int first_position) {
    if (x.cols() != Eigen::Index(heads) * head_dim) {
      throw std::logic_error("RoPE: " + std::to_string(x.cols()) + " columns are not " + std::to_string(heads) + " heads of " + std::to_string(head_dim));
    }
    const size_t half = inv_freq.size();
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const double position = double(first_position) + double(r);
      for (size_t i = 0; i < half; ++i) {
        const double angle = position * inv_freq[i];
        const double cos = std::cos(angle), sin = std::sin(angle);
        for (int h = 0; h < heads; ++h) {
          float* head = x.data() + r * x.cols() + Eigen::Index(h) * head_dim;
          const double a = head[i], b = head[i + half];
          head[i] = float(a * cos - b * sin);
          head[i + half] = float(b * cos + a * sin);
        }
      }
    }
  };
}

}  // namespace multihead
