// WASM SIMD SiLU, x·σ(x). Twin of f32-silu-scalar.cpp. σ(x) comes from e = e^(−|x|) ≤ 1, as
// 1/(1 + e) for x ≥ 0 and e/(1 + e) for x < 0, so the exponential never overflows; huge |x| gives
// e = 0, so x or (−0).
#include <wasm_simd128.h>

#include "multihead/kernels.h"
#include "wasmsimd-exp.h"

namespace multihead::kernels {
namespace {

inline v128_t silu(v128_t x) {
  const v128_t e = exp_nonpositive(wasm_f32x4_neg(wasm_f32x4_abs(x)));
  const v128_t inv = wasm_f32x4_div(wasm_f32x4_splat(1.0f), wasm_f32x4_add(wasm_f32x4_splat(1.0f), e));
  const v128_t negative = wasm_f32x4_lt(x, wasm_f32x4_splat(0.0f));
  return wasm_f32x4_mul(x, wasm_v128_bitselect(wasm_f32x4_mul(e, inv), inv, negative));
}

}  // namespace

void f32_silu_wasmsimd(size_t count, const float* x, float* y) {
  size_t i = 0;
  for (; i + 4 <= count; i += 4) wasm_v128_store(y + i, silu(wasm_v128_load(x + i)));
  if (i < count) {  // the tail through a padded vector, so every element gets the same formula
    float tail[4] = {0, 0, 0, 0};
    for (size_t j = i; j < count; ++j) tail[j - i] = x[j];
    wasm_v128_store(tail, silu(wasm_v128_load(tail)));
    for (size_t j = i; j < count; ++j) y[j] = tail[j - i];
  }
}

}  // namespace multihead::kernels
