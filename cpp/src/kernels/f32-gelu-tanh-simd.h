// The GELU's tanh form of f32-gelu-tanh-wasmsimd.cpp and f32-gelu-tanh-wasmrelaxedsimd.cpp,
// written once over its multiply-add (wasmsimd-madd.h). Twin of f32-gelu-tanh-scalar.cpp. WASM has
// no tanh: this uses ½(1 + tanh(u)) = σ(2u) = 1/(1 + e^(−2u)), computed from e = e^(−2|u|) ≤ 1 as
// 1/(1 + e) for u ≥ 0 and e/(1 + e) for u < 0. Unlike 1 + tanh(u), that never subtracts nearly
// equal numbers, so large negative inputs keep their relative accuracy; huge |x| (u = ±∞) gives
// e = 0, so x or 0.
#pragma once

#include <wasm_simd128.h>

#include "wasmsimd-exp.h"
#include "wasmsimd-lanes.h"

namespace multihead::kernels::gelu_tanh_simd {

template <class Madd>
inline v128_t gelu_tanh(v128_t x) {
  const v128_t one = wasm_f32x4_splat(1.0f);
  // u = √(2/π)·x·(1 + 0.044715·x²): the same value as √(2/π)·(x + 0.044715·x³), one multiply fewer.
  const v128_t x2 = wasm_f32x4_mul(x, x);
  const v128_t u = wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_splat(0.79788456080286536f), x),
                                  Madd::madd(wasm_f32x4_splat(0.044715f), x2, one));
  const v128_t e = exp_nonpositive<Madd>(wasm_f32x4_mul(wasm_f32x4_splat(-2.0f), wasm_f32x4_abs(u)));
  const v128_t inv = wasm_f32x4_div(one, wasm_f32x4_add(one, e));
  const v128_t negative = wasm_f32x4_lt(u, wasm_f32x4_splat(0.0f));
  const v128_t sigmoid = wasm_v128_bitselect(wasm_f32x4_mul(e, inv), inv, negative);
  return wasm_f32x4_mul(x, sigmoid);
}

template <class Madd>
void map(size_t count, const float* x, float* y) {
  map_lanes(count, x, y, [](v128_t v) { return gelu_tanh<Madd>(v); });
}

}  // namespace multihead::kernels::gelu_tanh_simd
