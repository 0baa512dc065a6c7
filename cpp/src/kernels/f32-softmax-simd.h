// The row softmax of f32-softmax-wasmsimd.cpp and f32-softmax-wasmrelaxedsimd.cpp, written once
// over its multiply-add (wasmsimd-madd.h), which only its exp (wasmsimd-exp.h) uses. Twin of
// f32-softmax-scalar.cpp. exp's inputs are x ≤ 0 because the row maximum is subtracted first.
#pragma once

#include <wasm_simd128.h>

#include <cmath>
#include <limits>

#include "wasmsimd-exp.h"
#include "wasmsimd-lanes.h"

namespace multihead::kernels::softmax_simd {

template <class Madd>
void softmax(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp) {
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  const size_t n4 = n & ~size_t{3};
  for (size_t i = 0; i < m; ++i) {
    const float* in = s + i * lds;
    float* out = p + i * ldp;

    v128_t vmax = wasm_f32x4_splat(kHidden);
    for (size_t j = 0; j < n4; j += 4) vmax = wasm_f32x4_pmax(vmax, wasm_v128_load(in + j));  // one instruction; scores are never NaN
    float max = lane_max(vmax);
    for (size_t j = n4; j < n; ++j) max = std::fmax(max, in[j]);
    if (max == kHidden) {  // every key hidden: define the row as zeros, not 0/0
      for (size_t j = 0; j < n; ++j) out[j] = 0.0f;
      continue;
    }

    const v128_t shift = wasm_f32x4_splat(max);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < n4; j += 4) {
      const v128_t e = exp_nonpositive<Madd>(wasm_f32x4_sub(wasm_v128_load(in + j), shift));
      wasm_v128_store(out + j, e);
      vsum = wasm_f32x4_add(vsum, e);
    }
    float sum = lane_sum(vsum);
    for (size_t j = n4; j < n; ++j) {
      out[j] = exp_nonpositive<Madd>(in[j] - max);
      sum += out[j];
    }

    const v128_t inv = wasm_f32x4_splat(1.0f / sum);
    for (size_t j = 0; j < n4; j += 4) wasm_v128_store(out + j, wasm_f32x4_mul(wasm_v128_load(out + j), inv));
    for (size_t j = n4; j < n; ++j) out[j] *= 1.0f / sum;
  }
}

}  // namespace multihead::kernels::softmax_simd
