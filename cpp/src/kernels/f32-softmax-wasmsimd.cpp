// WASM SIMD row softmax. Twin of f32-softmax-scalar.cpp. WASM SIMD has no exp instruction, so
// exp is a range reduction plus a degree-6 polynomial (the classic Cephes expf scheme), accurate
// to about 2 ulp on the inputs softmax gives it (x ≤ 0 once the row maximum is subtracted).
#include <wasm_simd128.h>

#include <cmath>
#include <limits>

#include "multihead/kernels.h"

namespace multihead::kernels {
namespace {

// e^x for x ≤ 0. Below -87.3 the result is under the smallest normal float: return exactly 0,
// which also maps -infinity (a hidden key) to 0.
inline v128_t exp_nonpositive(v128_t x) {
  const v128_t lowest = wasm_f32x4_splat(-87.3f);
  const v128_t underflow = wasm_f32x4_lt(x, lowest);
  x = wasm_f32x4_max(x, lowest);
  // x = n·ln2 + r, |r| ≤ ln2/2. ln2 is split in two so that n·ln2 loses no bits.
  const v128_t n = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)));
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t y = wasm_f32x4_splat(1.9875691500e-4f);
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(1.3981999507e-3f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(8.3334519073e-3f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(4.1665795894e-2f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(1.6666665459e-1f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(5.0000001201e-1f));
  y = wasm_f32x4_add(wasm_f32x4_mul(y, wasm_f32x4_mul(r, r)), r);
  y = wasm_f32x4_add(y, wasm_f32x4_splat(1.0f));
  // 2^n built in the exponent field; n ≥ -126 here, so the result is a normal float.
  const v128_t pow2n = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
  return wasm_v128_andnot(wasm_f32x4_mul(y, pow2n), underflow);
}

inline float exp_nonpositive(float x) { return wasm_f32x4_extract_lane(exp_nonpositive(wasm_f32x4_splat(x)), 0); }

inline float lane_max(v128_t v) {
  return std::fmax(std::fmax(wasm_f32x4_extract_lane(v, 0), wasm_f32x4_extract_lane(v, 1)),
                   std::fmax(wasm_f32x4_extract_lane(v, 2), wasm_f32x4_extract_lane(v, 3)));
}

inline float lane_sum(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

}  // namespace

void f32_softmax_wasmsimd(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp) {
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  const size_t n4 = n & ~size_t{3};
  for (size_t i = 0; i < m; ++i) {
    const float* in = s + i * lds;
    float* out = p + i * ldp;

    v128_t vmax = wasm_f32x4_splat(kHidden);
    for (size_t j = 0; j < n4; j += 4) vmax = wasm_f32x4_max(vmax, wasm_v128_load(in + j));
    float max = lane_max(vmax);
    for (size_t j = n4; j < n; ++j) max = std::fmax(max, in[j]);
    if (max == kHidden) {  // every key hidden: define the row as zeros, not 0/0
      for (size_t j = 0; j < n; ++j) out[j] = 0.0f;
      continue;
    }

    const v128_t shift = wasm_f32x4_splat(max);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < n4; j += 4) {
      const v128_t e = exp_nonpositive(wasm_f32x4_sub(wasm_v128_load(in + j), shift));
      wasm_v128_store(out + j, e);
      vsum = wasm_f32x4_add(vsum, e);
    }
    float sum = lane_sum(vsum);
    for (size_t j = n4; j < n; ++j) {
      out[j] = exp_nonpositive(in[j] - max);
      sum += out[j];
    }

    const v128_t inv = wasm_f32x4_splat(1.0f / sum);
    for (size_t j = 0; j < n4; j += 4) wasm_v128_store(out + j, wasm_f32x4_mul(wasm_v128_load(out + j), inv));
    for (size_t j = n4; j < n; ++j) out[j] *= 1.0f / sum;
  }
}

}  // namespace multihead::kernels
