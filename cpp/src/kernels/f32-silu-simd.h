// The SiLU, x·σ(x), of f32-silu-wasmsimd.cpp and f32-silu-wasmrelaxedsimd.cpp, written once over
// its multiply-add (wasmsimd-madd.h), which only its exp uses. Twin of f32-silu-scalar.cpp. σ(x)
// comes from e = e^(−|x|) ≤ 1, as 1/(1 + e) for x ≥ 0 and e/(1 + e) for x < 0, so the exponential
// never overflows; huge |x| gives e = 0, so x or (−0).
#pragma once

#include <wasm_simd128.h>

#include "wasmsimd-exp.h"
#include "wasmsimd-lanes.h"

namespace multihead::kernels::silu_simd {

template <class Madd>
inline v128_t silu(v128_t x) {
  const v128_t e = exp_nonpositive<Madd>(wasm_f32x4_neg(wasm_f32x4_abs(x)));
  const v128_t inv = wasm_f32x4_div(wasm_f32x4_splat(1.0f), wasm_f32x4_add(wasm_f32x4_splat(1.0f), e));
  const v128_t negative = wasm_f32x4_lt(x, wasm_f32x4_splat(0.0f));
  return wasm_f32x4_mul(x, wasm_v128_bitselect(wasm_f32x4_mul(e, inv), inv, negative));
}

template <class Madd>
void map(size_t count, const float* x, float* y) {
  map_lanes(count, x, y, [](v128_t v) { return silu<Madd>(v); });
}

}  // namespace multihead::kernels::silu_simd
