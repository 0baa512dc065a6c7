// The GEMM with bfloat16 weights of f32-bf16w-gemm-wasmsimd.cpp and
// f32-bf16w-gemm-wasmrelaxedsimd.cpp, written once over its multiply-add (wasmsimd-madd.h): C = A·B + bias, B packed by pack_b_bf16 in panels of 16
// columns. A bfloat16 is the upper half of the float32 it stands for, and pack_b_bf16 stores each 8
// columns as c0 c4 c1 c5 c2 c6 c3 c7, so one 16-byte load widens to columns 0–3 by a 32-bit shift
// left by 16 and to 4–7 by masking off the low halves. Two ways, by the number of rows:
// - From kWidenRows rows up (a prompt), each panel is widened once into a float32 panel, which the
//   F32 kernel of the same multiply-add (f32-gemm-2x16-simd.h) then multiplies by every row: the widening costs a few
//   instructions per panel row against 2 × 16 multiply-adds per row of A. Measured here on
//   SmolLM2-135M's shapes at 128 and 512 rows: 0.99–1.02 times the F32 kernel's GFLOP/s, where
//   widening in registers, in tiles of 4 rows × 8 columns, ran at 0.80. Between 2 and 16 rows:
//   0.61–0.94.
// - For one row (a decode step), the weights are widened in registers as they are read, a panel
//   at a time: 1.0 times the F32 kernel's GFLOP/s, reading half its bytes. As in the F32 kernel,
//   one row takes MulAdd in both builds: its 4 accumulator chains are bound by their latency,
//   which a fused multiply-add lengthens.
// Twin of f32-bf16w-gemm-scalar.cpp, bit-identical to it either way with MulAdd: each C value sums
// its bias then p = 0 … k-1, as the F32 kernels do; with either multiply-add, bit-identical to the F32
// kernel of the same multiply-add on the widened weights.
#pragma once

#include <wasm_simd128.h>

#include <algorithm>
#include <vector>

#include "f32-gemm-2x16-simd.h"
#include "multihead/kernels.h"
#include "wasmsimd-madd.h"

namespace multihead::kernels::bf16w_gemm_simd {

constexpr size_t kHalf = kPanelWidth / 2;
constexpr size_t kWidenRows = 2;  // one row: 1.0 times F32 widening in registers, 0.51 widening the panel first

// One row of A times one panel, widening each row of the panel in registers: acc holds C's 16 columns.
template <class Madd>
void row_times_panel(size_t k, const float* a, const uint16_t* panel, const float* bias, size_t width, float* c) {
  float start[kPanelWidth] = {};  // the bias, zero-padded to the panel (or zeros)
  if (bias) std::copy(bias, bias + width, start);
  v128_t acc[4];
  for (size_t v = 0; v < 4; ++v) acc[v] = wasm_v128_load(start + 4 * v);
  const v128_t upper = wasm_i32x4_const_splat(int32_t(0xFFFF0000u));
  for (size_t p = 0; p < k; ++p, panel += kPanelWidth) {
    const v128_t av = wasm_v128_load32_splat(a + p);
    for (size_t h = 0; h < 2; ++h) {
      const v128_t raw = wasm_v128_load(panel + kHalf * h);
      acc[2 * h] = Madd::madd(av, wasm_i32x4_shl(raw, 16), acc[2 * h]);
      acc[2 * h + 1] = Madd::madd(av, wasm_v128_and(raw, upper), acc[2 * h + 1]);
    }
  }
  float row[kPanelWidth];
  for (size_t v = 0; v < 4; ++v) wasm_v128_store(row + 4 * v, acc[v]);
  std::copy(row, row + width, c);
}

// One panel of k rows, 16 bfloat16 columns each in bf16_slot order, as float32 in column order.
inline void widen_panel(size_t k, const uint16_t* panel, float* out) {
  const v128_t upper = wasm_i32x4_const_splat(int32_t(0xFFFF0000u));
  for (size_t p = 0; p < k; ++p, panel += kPanelWidth, out += kPanelWidth) {
    for (size_t h = 0; h < kPanelWidth; h += kHalf) {
      const v128_t raw = wasm_v128_load(panel + h);
      wasm_v128_store(out + h, wasm_i32x4_shl(raw, 16));
      wasm_v128_store(out + h + 4, wasm_v128_and(raw, upper));
    }
  }
}

template <class Madd>
void gemm(size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed, size_t panel_stride,
          const float* bias, float* c, size_t ldc) {
  if (m >= kWidenRows) {  // m × 16 multiply-adds per widened panel row
    std::vector<float> widened(kPanelWidth * k);
    for (size_t j = 0; j < n; j += kPanelWidth) {
      widen_panel(k, b_packed + j / kPanelWidth * panel_stride, widened.data());
      gemm_2x16::gemm<Madd>(m, std::min(kPanelWidth, n - j), k, a, lda, widened.data(), kPanelWidth * k, bias ? bias + j : nullptr,
                            c + j, ldc);
    }
    return;
  }
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; j += kPanelWidth) {
      row_times_panel<MulAdd>(k, a + i * lda, b_packed + j / kPanelWidth * panel_stride, bias ? bias + j : nullptr,
                            std::min(kPanelWidth, n - j), c + i * ldc + j);
    }
  }
}

}  // namespace multihead::kernels::bf16w_gemm_simd
