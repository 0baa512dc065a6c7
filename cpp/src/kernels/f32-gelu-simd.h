// The GELU, x/2·(1 + erf(x/√2)), of f32-gelu-wasmsimd.cpp and f32-gelu-wasmrelaxedsimd.cpp,
// written once over its multiply-add (wasmsimd-madd.h). Twin of f32-gelu-scalar.cpp. WASM has no
// erf: this uses the rational approximation of Abramowitz & Stegun 7.1.26, erf(z) ≈ 1 − t·P(t)·e^(−z²)
// with t = 1/(1 + p·z) for z ≥ 0 (absolute error below 1.5e-7), and erf(−z) = −erf(z).
#pragma once

#include <wasm_simd128.h>

#include "wasmsimd-exp.h"
#include "wasmsimd-lanes.h"

namespace multihead::kernels::gelu_simd {

template <class Madd>
inline v128_t gelu(v128_t x) {
  const v128_t one = wasm_f32x4_splat(1.0f);
  const v128_t z = wasm_f32x4_abs(wasm_f32x4_mul(x, wasm_f32x4_splat(0.70710678118654752f)));
  const v128_t t = wasm_f32x4_div(one, Madd::madd(z, wasm_f32x4_splat(0.3275911f), one));
  v128_t p = wasm_f32x4_splat(1.061405429f);
  p = Madd::madd(p, t, wasm_f32x4_splat(-1.453152027f));
  p = Madd::madd(p, t, wasm_f32x4_splat(1.421413741f));
  p = Madd::madd(p, t, wasm_f32x4_splat(-0.284496736f));
  p = Madd::madd(p, t, wasm_f32x4_splat(0.254829592f));
  p = wasm_f32x4_mul(p, t);
  // 1 − p·e^(−z²), as (−p)·e^(−z²) + 1.
  const v128_t erf_abs = Madd::madd(wasm_f32x4_neg(p), exp_nonpositive<Madd>(wasm_f32x4_neg(wasm_f32x4_mul(z, z))), one);
  // Copy x's sign onto erf(|z|): erf is odd.
  const v128_t sign = wasm_v128_and(x, wasm_f32x4_splat(-0.0f));
  const v128_t erf = wasm_v128_or(erf_abs, sign);
  return wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_splat(0.5f), x), wasm_f32x4_add(one, erf));
}

template <class Madd>
void map(size_t count, const float* x, float* y) {
  map_lanes(count, x, y, [](v128_t v) { return gelu<Madd>(v); });
}

}  // namespace multihead::kernels::gelu_simd
