// WASM SIMD GEMM with bfloat16 weights, C = A·B + bias, B packed by pack_b_bf16 in panels of 16
// columns, in register tiles of 4 rows × 8 columns (half a panel): 8 f32x4 accumulators. Each row
// of a half panel is one 16-byte load of 8 values, widened in registers: a bfloat16 is the upper
// half of the float32 it stands for, and pack_b_bf16 stores each 8 columns as c0 c4 c1 c5 c2 c6 c3
// c7, so a 32-bit shift left by 16 gives columns 0–3 as floats and masking off the low halves gives
// 4–7. The widening shares the FP units with the multiply-adds, so it pays to spread it over 4
// rows: measured here against the F32 kernel's 2 × 16 tiles, this tile ran at 0.80 times its
// GFLOP/s, 2 × 16 with the same widening at 0.62, 5 × 8 at 0.72 and 6 × 8 (spilling) at 0.53.
// Twin of f32-bf16w-gemm-scalar.cpp, bit-identical to it: each C value sums its bias then p = 0 … k-1.
#include <wasm_simd128.h>

#include <algorithm>

#include "multihead/kernels.h"

namespace multihead::kernels {
namespace {

constexpr size_t kHalf = kPanelWidth / 2;

// R rows of A times one half panel (`half` 0 or 1): acc[r] holds C's row r across its 8 columns.
template <size_t R>
inline void tile(size_t k, const float* a, size_t lda, const uint16_t* panel, size_t half, const float* bias, size_t width,
                 float* c, size_t ldc) {
  float start[kHalf] = {};  // the bias, zero-padded to the half panel (or zeros)
  if (bias) std::copy(bias, bias + width, start);
  v128_t acc[R][2];
  for (size_t r = 0; r < R; ++r) {
    acc[r][0] = wasm_v128_load(start);
    acc[r][1] = wasm_v128_load(start + 4);
  }
  const v128_t upper = wasm_i32x4_const_splat(int32_t(0xFFFF0000u));
  const uint16_t* columns = panel + kHalf * half;
  for (size_t p = 0; p < k; ++p) {
    const v128_t raw = wasm_v128_load(columns + p * kPanelWidth);
    const v128_t b0 = wasm_i32x4_shl(raw, 16), b1 = wasm_v128_and(raw, upper);  // columns 0–3, 4–7
    for (size_t r = 0; r < R; ++r) {
      const v128_t av = wasm_v128_load32_splat(a + r * lda + p);
      acc[r][0] = wasm_f32x4_add(acc[r][0], wasm_f32x4_mul(av, b0));
      acc[r][1] = wasm_f32x4_add(acc[r][1], wasm_f32x4_mul(av, b1));
    }
  }
  for (size_t r = 0; r < R; ++r) {
    if (width == kHalf) {
      wasm_v128_store(c + r * ldc, acc[r][0]);
      wasm_v128_store(c + r * ldc + 4, acc[r][1]);
    } else {  // the last columns of a matrix whose width is not a multiple of 8
      float row[kHalf];
      wasm_v128_store(row, acc[r][0]);
      wasm_v128_store(row + 4, acc[r][1]);
      std::copy(row, row + width, c + r * ldc);
    }
  }
}

}  // namespace

void f32_bf16w_gemm_wasmsimd_4x8(size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed,
                                 size_t panel_stride, const float* bias, float* c, size_t ldc) {
  // Half panel by half panel: one (k × 8) block stays in cache while every row of A streams past it.
  for (size_t j = 0; j < n; j += kHalf) {
    const uint16_t* panel = b_packed + j / kPanelWidth * panel_stride;
    const size_t half = j % kPanelWidth / kHalf, width = std::min(kHalf, n - j);
    const float* block_bias = bias ? bias + j : nullptr;
    size_t i = 0;
    for (; i + 4 <= m; i += 4) tile<4>(k, a + i * lda, lda, panel, half, block_bias, width, c + i * ldc + j, ldc);
    for (; i < m; ++i) tile<1>(k, a + i * lda, lda, panel, half, block_bias, width, c + i * ldc + j, ldc);
  }
}

}  // namespace multihead::kernels
