// Horizontal reductions of one f32x4 vector, for the SIMD kernels.
#pragma once

#include <wasm_simd128.h>

#include <cmath>

namespace multihead::kernels {

inline float lane_sum(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

inline float lane_max(v128_t v) {
  return std::fmax(std::fmax(wasm_f32x4_extract_lane(v, 0), wasm_f32x4_extract_lane(v, 1)),
                   std::fmax(wasm_f32x4_extract_lane(v, 2), wasm_f32x4_extract_lane(v, 3)));
}

}  // namespace multihead::kernels
