// The GEMM of f32-gemm-wasmsimd-2x16.cpp and f32-gemm-wasmrelaxedsimd-2x16.cpp, written once over
// its multiply-add (wasmsimd-madd.h): C = A·B + bias with B packed in panels of 16 columns, in
// register tiles of 2 rows × 16 columns: 8 f32x4 accumulators, 4 vectors of B and one broadcast
// of A live at once, under the 15 vector registers V8 leaves free on x64. With MulAdd it is
// bit-identical to f32-gemm-scalar.cpp.
//
// Measured on BERT-base's 128 × 768 × 768 on this AMD EPYC, in one binary, kernels taking turns:
// - with a multiply then an add, 51–54 GFLOP/s: each accumulator's chain is only its adds, whose
//   latency 8 chains hide, and the adds have ports of their own, so this is already close to
//   what relaxed_madd reaches in the peak probe;
// - with relaxed_madd, 0.92–0.94 of that: its chain is the whole fused operation, whose latency
//   8 chains only just hide. A tile of 4 × 8 did the same. Every tile with more accumulators
//   (3 × 16, 5 × 8, 6 × 8) ran at 0.4–0.6: clang loads every broadcast of A before the
//   multiply-adds that use them, so their registers spill.
// A single row (the last of an odd count, or a decode step's) has only 4 chains, which their
// latency bounds, and the fused operation's is longer than an add's: one row takes MulAdd in both
// builds (the relaxed build's decode steps ran at 1.43–1.57 times the weight-streaming floor with
// relaxed_madd there, against the SIMD build's 1.29).
#pragma once

#include <wasm_simd128.h>

#include <algorithm>

#include "multihead/kernels.h"
#include "wasmsimd-madd.h"

namespace multihead::kernels::gemm_2x16 {

constexpr size_t kVectors = kPanelWidth / 4;

// R rows of A times one panel: acc[r] holds C's row r across the panel's 16 columns.
template <class Madd, size_t R>
inline void tile(size_t k, const float* a, size_t lda, const float* panel, const float* bias, size_t width,
                 float* c, size_t ldc) {
  float start[kPanelWidth] = {};  // the bias, zero-padded to the panel (or zeros)
  if (bias) std::copy(bias, bias + width, start);
  v128_t acc[R][kVectors];
  for (size_t v = 0; v < kVectors; ++v) {
    for (size_t r = 0; r < R; ++r) acc[r][v] = wasm_v128_load(start + 4 * v);
  }
  for (size_t p = 0; p < k; ++p) {
    v128_t b[kVectors];
    for (size_t v = 0; v < kVectors; ++v) b[v] = wasm_v128_load(panel + p * kPanelWidth + 4 * v);
    for (size_t r = 0; r < R; ++r) {
      const v128_t av = wasm_v128_load32_splat(a + r * lda + p);
      for (size_t v = 0; v < kVectors; ++v) acc[r][v] = Madd::madd(av, b[v], acc[r][v]);
    }
  }
  for (size_t r = 0; r < R; ++r) {
    if (width == kPanelWidth) {
      for (size_t v = 0; v < kVectors; ++v) wasm_v128_store(c + r * ldc + 4 * v, acc[r][v]);
    } else {  // the last panel of a matrix whose width is not a multiple of 16
      float row[kPanelWidth];
      for (size_t v = 0; v < kVectors; ++v) wasm_v128_store(row + 4 * v, acc[r][v]);
      std::copy(row, row + width, c + r * ldc);
    }
  }
}

template <class Madd>
void gemm(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed, size_t panel_stride,
          const float* bias, float* c, size_t ldc) {
  // Panel by panel: one panel (k × 16) stays in cache while every row of A streams past it.
  for (size_t j = 0; j < n; j += kPanelWidth) {
    const float* panel = b_packed + j / kPanelWidth * panel_stride;
    const float* panel_bias = bias ? bias + j : nullptr;
    const size_t width = std::min(kPanelWidth, n - j);
    size_t i = 0;
    for (; i + 2 <= m; i += 2) tile<Madd, 2>(k, a + i * lda, lda, panel, panel_bias, width, c + i * ldc + j, ldc);
    if (i < m) tile<MulAdd, 1>(k, a + i * lda, lda, panel, panel_bias, width, c + i * ldc + j, ldc);
  }
}

}  // namespace multihead::kernels::gemm_2x16
