// WASM SIMD layer normalisation over each row. Twin of f32-layer-norm-scalar.cpp (same two-pass
// scheme); sums in four lanes, so results differ from the scalar kernel by rounding only.
#include <wasm_simd128.h>

#include <cmath>

#include "multihead/kernels.h"
#include "wasmsimd-lanes.h"

namespace multihead::kernels {

void f32_layer_norm_wasmsimd(size_t m, size_t n, const float* x, size_t ldx, const float* gamma,
                             const float* beta, float eps, float* y, size_t ldy) {
  const size_t n4 = n & ~size_t{3};
  for (size_t i = 0; i < m; ++i) {
    const float* in = x + i * ldx;
    float* out = y + i * ldy;

    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < n4; j += 4) vsum = wasm_f32x4_add(vsum, wasm_v128_load(in + j));
    float sum = lane_sum(vsum);
    for (size_t j = n4; j < n; ++j) sum += in[j];
    const float mean = sum / float(n);

    const v128_t vmean = wasm_f32x4_splat(mean);
    v128_t vsquares = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < n4; j += 4) {
      const v128_t dev = wasm_f32x4_sub(wasm_v128_load(in + j), vmean);
      vsquares = wasm_f32x4_add(vsquares, wasm_f32x4_mul(dev, dev));
    }
    float squares = lane_sum(vsquares);
    for (size_t j = n4; j < n; ++j) squares += (in[j] - mean) * (in[j] - mean);
    const float inv_std = 1.0f / std::sqrt(squares / float(n) + eps);

    const v128_t vinv = wasm_f32x4_splat(inv_std);
    for (size_t j = 0; j < n4; j += 4) {
      const v128_t norm = wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(in + j), vmean), vinv);
      wasm_v128_store(out + j, wasm_f32x4_add(wasm_f32x4_mul(norm, wasm_v128_load(gamma + j)), wasm_v128_load(beta + j)));
    }
    for (size_t j = n4; j < n; ++j) out[j] = (in[j] - mean) * inv_std * gamma[j] + beta[j];
  }
}

}  // namespace multihead::kernels
