// WASM SIMD weighted sum of values, O = P·V, as row blocks of the 4×8 GEMM kernel. Twin of
// f32-weighted-sum-scalar.cpp. With a causal mask, a block of 4 query rows only needs the keys up
// to its last row: the few extra terms inside the block multiply exact zeros, so they change nothing.
#include <algorithm>

#include "key-visibility.h"
#include "multihead/kernels.h"

namespace multihead::kernels {

void f32_weighted_sum_wasmsimd_4x8(size_t m, size_t n, size_t d, const float* p, size_t ldp,
                                   const float* v, size_t ldv, bool causal, float* o, size_t ldo) {
  if (!causal) {
    f32_gemm_wasmsimd_4x8(m, d, n, p, ldp, v, ldv, nullptr, o, ldo);
    return;
  }
  for (size_t i = 0; i < m; i += 4) {
    const size_t rows = std::min<size_t>(4, m - i);
    const size_t keys = visible_key_end(i + rows - 1, n, causal);
    f32_gemm_wasmsimd_4x8(rows, d, keys, p + i * ldp, ldp, v, ldv, nullptr, o + i * ldo, ldo);
  }
}

}  // namespace multihead::kernels
