// WASM SIMD RMS normalisation over each row. Twin of f32-rms-norm-scalar.cpp; sums in four lanes,
// so results differ from the scalar kernel by rounding only.
#include <wasm_simd128.h>

#include <cmath>

#include "multihead/kernels.h"
#include "wasmsimd-lanes.h"

namespace multihead::kernels {

void f32_rms_norm_wasmsimd(size_t m, size_t n, const float* x, size_t ldx, const float* weight, float eps, float* y, size_t ldy) {
  const size_t n4 = n & ~size_t{3};
  for (size_t i = 0; i < m; ++i) {
    const float* in = x + i * ldx;
    float* out = y + i * ldy;
    v128_t vsquares = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < n4; j += 4) {
      const v128_t v = wasm_v128_load(in + j);
      vsquares = wasm_f32x4_add(vsquares, wasm_f32x4_mul(v, v));
    }
    float squares = lane_sum(vsquares);
    for (size_t j = n4; j < n; ++j) squares += in[j] * in[j];
    const float inv_rms = 1.0f / std::sqrt(squares / float(n) + eps);
    const v128_t vinv = wasm_f32x4_splat(inv_rms);
    for (size_t j = 0; j < n4; j += 4) {
      wasm_v128_store(out + j, wasm_f32x4_mul(wasm_f32x4_mul(wasm_v128_load(in + j), vinv), wasm_v128_load(weight + j)));
    }
    for (size_t j = n4; j < n; ++j) out[j] = in[j] * inv_rms * weight[j];
  }
}

}  // namespace multihead::kernels
