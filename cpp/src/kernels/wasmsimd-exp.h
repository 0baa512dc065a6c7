// e^x on four floats for the SIMD kernels (softmax, GELU, SiLU). WASM SIMD has no exp
// instruction: this is a range reduction plus a degree-6 polynomial (the classic Cephes expf
// scheme), accurate to about 2 ulp. Only x ≤ 0 is needed, which keeps 2^n a normal float. Written
// over its multiply-add (wasmsimd-madd.h): in the relaxed-SIMD kernels each of its nine
// multiply-adds is one relaxed_madd.
#pragma once

#include <wasm_simd128.h>

#include "wasmsimd-madd.h"

namespace multihead::kernels {

// e^x for x ≤ 0. Below -87.3 the result is under the smallest normal float: return exactly 0,
// which also maps -infinity (a hidden key) to 0.
template <class Madd>
inline v128_t exp_nonpositive(v128_t x) {
  const v128_t lowest = wasm_f32x4_splat(-87.3f);
  const v128_t underflow = wasm_f32x4_lt(x, lowest);
  x = wasm_f32x4_pmax(lowest, x);  // pmax is one instruction; max also orders NaNs, which cannot occur here
  // x = n·ln2 + r, |r| ≤ ln2/2. Adding 1.5·2²³ + 127 rounds x·log2(e) to the nearest integer n in
  // the low mantissa bits, already biased by 127: shifted into the exponent field that is 2^n.
  // (Cheaper than nearest + trunc_sat, which V8 expands into several instructions.)
  const v128_t magic = wasm_f32x4_splat(12583039.0f);
  const v128_t biased = Madd::madd(x, wasm_f32x4_splat(1.44269504088896341f), magic);
  const v128_t n = wasm_f32x4_sub(biased, magic);
  // ln2 is split in two so that n·ln2 loses no bits.
  v128_t r = Madd::madd(n, wasm_f32x4_splat(-0.693359375f), x);
  r = Madd::madd(n, wasm_f32x4_splat(2.12194440e-4f), r);
  v128_t y = wasm_f32x4_splat(1.9875691500e-4f);
  y = Madd::madd(y, r, wasm_f32x4_splat(1.3981999507e-3f));
  y = Madd::madd(y, r, wasm_f32x4_splat(8.3334519073e-3f));
  y = Madd::madd(y, r, wasm_f32x4_splat(4.1665795894e-2f));
  y = Madd::madd(y, r, wasm_f32x4_splat(1.6666665459e-1f));
  y = Madd::madd(y, r, wasm_f32x4_splat(5.0000001201e-1f));
  y = Madd::madd(y, wasm_f32x4_mul(r, r), r);
  y = wasm_f32x4_add(y, wasm_f32x4_splat(1.0f));
  // n ≥ -126 here, so n + 127 ≥ 1 and 2^n is a normal float.
  const v128_t pow2n = wasm_i32x4_shl(biased, 23);
  return wasm_v128_andnot(wasm_f32x4_mul(y, pow2n), underflow);
}

template <class Madd>
inline float exp_nonpositive(float x) { return wasm_f32x4_extract_lane(exp_nonpositive<Madd>(wasm_f32x4_splat(x)), 0); }

}  // namespace multihead::kernels
