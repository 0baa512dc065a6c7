// WASM SIMD GEMM, C = A·B + bias, in register tiles of 4 rows × 8 columns (8 f32x4 accumulators,
// well under the 16 vector registers V8 has on x64, so nothing spills). Twin of f32-gemm-scalar.cpp,
// which also computes the column tail narrower than 4.
#include <wasm_simd128.h>

#include "multihead/kernels.h"

namespace multihead::kernels {
namespace {

// One tile of R rows × 4·V columns: broadcast one element of A, multiply by V vectors of B's row.
template <size_t R, size_t V>
inline void tile(size_t k, const float* a, size_t lda, const float* b, size_t ldb, const float* bias,
                 float* c, size_t ldc) {
  v128_t acc[R][V];
  for (size_t v = 0; v < V; ++v) {
    const v128_t init = bias ? wasm_v128_load(bias + 4 * v) : wasm_f32x4_splat(0.0f);
    for (size_t r = 0; r < R; ++r) acc[r][v] = init;
  }
  for (size_t p = 0; p < k; ++p) {
    v128_t bv[V];
    for (size_t v = 0; v < V; ++v) bv[v] = wasm_v128_load(b + p * ldb + 4 * v);
    for (size_t r = 0; r < R; ++r) {
      const v128_t av = wasm_f32x4_splat(a[r * lda + p]);
      for (size_t v = 0; v < V; ++v) acc[r][v] = wasm_f32x4_add(acc[r][v], wasm_f32x4_mul(av, bv[v]));
    }
  }
  for (size_t r = 0; r < R; ++r) {
    for (size_t v = 0; v < V; ++v) wasm_v128_store(c + r * ldc + 4 * v, acc[r][v]);
  }
}

template <size_t R>
void row_block(size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
               const float* bias, float* c, size_t ldc) {
  size_t j = 0;
  for (; j + 8 <= n; j += 8) tile<R, 2>(k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
  if (j + 4 <= n) {
    tile<R, 1>(k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
    j += 4;
  }
  if (j < n) f32_gemm_scalar(R, n - j, k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
}

}  // namespace

void f32_gemm_wasmsimd_4x8(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                           size_t ldb, const float* bias, float* c, size_t ldc) {
  size_t i = 0;
  for (; i + 4 <= m; i += 4) row_block<4>(n, k, a + i * lda, lda, b, ldb, bias, c + i * ldc, ldc);
  for (; i < m; ++i) row_block<1>(n, k, a + i * lda, lda, b, ldb, bias, c + i * ldc, ldc);
}

}  // namespace multihead::kernels
