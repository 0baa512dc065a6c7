// Horizontal reductions of one f32x4 vector, and an elementwise map over an array, for the SIMD kernels.
#pragma once

#include <wasm_simd128.h>

#include <cmath>
#include <cstddef>

namespace multihead::kernels {

inline float lane_sum(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

inline float lane_max(v128_t v) {
  return std::fmax(std::fmax(wasm_f32x4_extract_lane(v, 0), wasm_f32x4_extract_lane(v, 1)),
                   std::fmax(wasm_f32x4_extract_lane(v, 2), wasm_f32x4_extract_lane(v, 3)));
}

// y[i] = f(x[i]) for count floats, four at a time; y may be x. The tail goes through a padded
// vector, so every element gets the same formula as in a full one.
template <class F>
inline void map_lanes(size_t count, const float* x, float* y, F f) {
  size_t i = 0;
  for (; i + 4 <= count; i += 4) wasm_v128_store(y + i, f(wasm_v128_load(x + i)));
  if (i < count) {
    float tail[4] = {0, 0, 0, 0};
    for (size_t j = i; j < count; ++j) tail[j - i] = x[j];
    wasm_v128_store(tail, f(wasm_v128_load(tail)));
    for (size_t j = i; j < count; ++j) y[j] = tail[j - i];
  }
}

}  // namespace multihead::kernels
