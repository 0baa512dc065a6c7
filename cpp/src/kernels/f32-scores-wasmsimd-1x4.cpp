// WASM SIMD attention scores, S = scale·Q·Kᵀ with masking: one query against 4 keys at a time,
// vectorised along the head dimension. Twin of f32-scores-scalar.cpp. It sums in a different
// order than the scalar kernel, so results differ by rounding only.
#include <wasm_simd128.h>

#include "key-visibility.h"
#include "multihead/kernels.h"
#include "wasmsimd-lanes.h"

namespace multihead::kernels {
void f32_scores_wasmsimd_1x4(size_t m, size_t n, size_t d, float scale, const float* q, size_t ldq,
                             const float* k, size_t ldk, const uint8_t* key_mask, bool causal,
                             float* s, size_t lds) {
  const size_t d4 = d & ~size_t{3};
  for (size_t i = 0; i < m; ++i) {
    const float* qi = q + i * ldq;
    float* si = s + i * lds;
    const size_t end = visible_key_end(i, n, causal);
    size_t j = 0;
    for (; j + 4 <= end; j += 4) {
      const float* k0 = k + j * ldk;
      const float* k1 = k0 + ldk;
      const float* k2 = k1 + ldk;
      const float* k3 = k2 + ldk;
      v128_t acc0 = wasm_f32x4_splat(0.0f), acc1 = acc0, acc2 = acc0, acc3 = acc0;
      for (size_t p = 0; p < d4; p += 4) {
        const v128_t qv = wasm_v128_load(qi + p);
        acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(qv, wasm_v128_load(k0 + p)));
        acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(qv, wasm_v128_load(k1 + p)));
        acc2 = wasm_f32x4_add(acc2, wasm_f32x4_mul(qv, wasm_v128_load(k2 + p)));
        acc3 = wasm_f32x4_add(acc3, wasm_f32x4_mul(qv, wasm_v128_load(k3 + p)));
      }
      float dot0 = lane_sum(acc0), dot1 = lane_sum(acc1), dot2 = lane_sum(acc2), dot3 = lane_sum(acc3);
      for (size_t p = d4; p < d; ++p) {
        dot0 += qi[p] * k0[p];
        dot1 += qi[p] * k1[p];
        dot2 += qi[p] * k2[p];
        dot3 += qi[p] * k3[p];
      }
      si[j] = dot0 * scale;
      si[j + 1] = dot1 * scale;
      si[j + 2] = dot2 * scale;
      si[j + 3] = dot3 * scale;
    }
    for (; j < end; ++j) {
      const float* kj = k + j * ldk;
      v128_t acc = wasm_f32x4_splat(0.0f);
      for (size_t p = 0; p < d4; p += 4) {
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_v128_load(qi + p), wasm_v128_load(kj + p)));
      }
      float dot = lane_sum(acc);
      for (size_t p = d4; p < d; ++p) dot += qi[p] * kj[p];
      si[j] = dot * scale;
    }
    hide_masked_scores(si, n, end, key_mask);
  }
}

}  // namespace multihead::kernels
