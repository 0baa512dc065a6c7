// The table-times-vector of f32-gemv-wasmsimd.cpp and f32-gemv-wasmrelaxedsimd.cpp, written once
// over its multiply-add (wasmsimd-madd.h): out (rows) = T (rows, d) · x, T of float32 or bfloat16 in plain
// row-major order (the LM head reading the embedding table in place): per row, two f32x4
// accumulators take 8 values a step, the last d mod 8 are added to their sums one by one, and the
// sums are added as kernels.h says. A float32 row: four rows at a time, for eight independent
// chains (then two, then one). A bfloat16 row: one 16-byte load of 8 values widens to the even ones by a 32-bit shift
// left by 16 and to the odd ones by masking off the low halves (two instructions, where
// zero-extending each half and shifting takes four), so x is read with its even and odd values
// apart (copied so once per call), and the accumulators hold sums 0 2 4 6 and 1 3 5 7; four rows
// at a time share each read of x. Measured on SmolLM2-135M's LM head (49152 × 576) in a decode
// step: see the commit that made it. Twin of f32-gemv-scalar.cpp, bit-identical to it with MulAdd.
#pragma once

#include <wasm_simd128.h>

#include <vector>

#include "multihead/kernels.h"
#include "wasmsimd-madd.h"

namespace multihead::kernels::gemv_simd {

// Columns p … p + 7 of a float32 row as two f32x4.
struct Eight {
  v128_t low, high;
};
inline Eight load8(const float* row, size_t p) { return {wasm_v128_load(row + p), wasm_v128_load(row + p + 4)}; }

// The row's sum from its accumulators and its tail, in kernels.h's order.
inline float finish(v128_t low, v128_t high, const float* row, const float* x, size_t from, size_t d) {
  float s[kGemvLanes];
  wasm_v128_store(s, low);
  wasm_v128_store(s + 4, high);
  for (size_t p = from; p < d; ++p) s[p % kGemvLanes] += row[p] * x[p];
  return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

// Rows r … r + R − 1 of a bfloat16 table, x's 8-blocks stored as evens then odds in `xs`.
template <class Madd, size_t R>
void bf16_rows(size_t d, size_t whole, const uint16_t* table, const float* x, const float* xs, float* out) {
  const v128_t upper = wasm_i32x4_const_splat(int32_t(0xFFFF0000u));
  v128_t even[R], odd[R];
  for (size_t i = 0; i < R; ++i) even[i] = odd[i] = wasm_f32x4_splat(0);
  for (size_t p = 0; p < whole; p += kGemvLanes) {
    const v128_t xe = wasm_v128_load(xs + p), xo = wasm_v128_load(xs + p + 4);
    for (size_t i = 0; i < R; ++i) {
      const v128_t raw = wasm_v128_load(table + i * d + p);
      even[i] = Madd::madd(wasm_i32x4_shl(raw, 16), xe, even[i]);
      odd[i] = Madd::madd(wasm_v128_and(raw, upper), xo, odd[i]);
    }
  }
  for (size_t i = 0; i < R; ++i) {
    float e[4], o[4];
    wasm_v128_store(e, even[i]);
    wasm_v128_store(o, odd[i]);
    float s[kGemvLanes] = {e[0], o[0], e[1], o[1], e[2], o[2], e[3], o[3]};
    const uint16_t* row = table + i * d;
    for (size_t p = whole; p < d; ++p) s[p % kGemvLanes] += bf16_to_f32(row[p]) * x[p];
    out[i] = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
  }
}

template <class Madd>
void bf16_table_dot(size_t rows, size_t d, const uint16_t* table, const float* x, float* out) {
  const size_t whole = d / kGemvLanes * kGemvLanes;
  std::vector<float> xs(whole);
  for (size_t p = 0; p < whole; p += kGemvLanes) {
    for (size_t i = 0; i < 4; ++i) {
      xs[p + i] = x[p + 2 * i];
      xs[p + 4 + i] = x[p + 2 * i + 1];
    }
  }
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) bf16_rows<Madd, 4>(d, whole, table + r * d, x, xs.data(), out + r);
  for (; r < rows; ++r) bf16_rows<Madd, 1>(d, whole, table + r * d, x, xs.data(), out + r);
}

// Rows r … r + R − 1 of a float32 table: two accumulators each, 2R independent chains sharing each read of x.
template <class Madd, size_t R>
void f32_rows(size_t d, size_t whole, const float* table, const float* x, float* out) {
  v128_t low[R], high[R];
  for (size_t i = 0; i < R; ++i) low[i] = high[i] = wasm_f32x4_splat(0);
  for (size_t p = 0; p < whole; p += kGemvLanes) {
    const v128_t x0 = wasm_v128_load(x + p), x1 = wasm_v128_load(x + p + 4);
    for (size_t i = 0; i < R; ++i) {
      const Eight t = load8(table + i * d, p);
      low[i] = Madd::madd(t.low, x0, low[i]);
      high[i] = Madd::madd(t.high, x1, high[i]);
    }
  }
  for (size_t i = 0; i < R; ++i) out[i] = finish(low[i], high[i], table + i * d, x, whole, d);
}

template <class Madd>
void rows_dot(size_t rows, size_t d, const float* table, const float* x, float* out) {
  const size_t whole = d / kGemvLanes * kGemvLanes;
  size_t r = 0;
  // Four rows at a time: eight chains keep the multiply-adds' latency hidden while the table streams.
  for (; r + 4 <= rows; r += 4) f32_rows<Madd, 4>(d, whole, table + r * d, x, out + r);
  for (; r + 2 <= rows; r += 2) {
    const float* a = table + r * d;
    const float* b = a + d;
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0, b0 = a0, b1 = a0;
    for (size_t p = 0; p < whole; p += kGemvLanes) {
      const v128_t x0 = wasm_v128_load(x + p), x1 = wasm_v128_load(x + p + 4);
      const Eight ta = load8(a, p), tb = load8(b, p);
      a0 = Madd::madd(ta.low, x0, a0);
      a1 = Madd::madd(ta.high, x1, a1);
      b0 = Madd::madd(tb.low, x0, b0);
      b1 = Madd::madd(tb.high, x1, b1);
    }
    out[r] = finish(a0, a1, a, x, whole, d);
    out[r + 1] = finish(b0, b1, b, x, whole, d);
  }
  for (; r < rows; ++r) {
    const float* a = table + r * d;
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0;
    for (size_t p = 0; p < whole; p += kGemvLanes) {
      const Eight ta = load8(a, p);
      a0 = Madd::madd(ta.low, wasm_v128_load(x + p), a0);
      a1 = Madd::madd(ta.high, wasm_v128_load(x + p + 4), a1);
    }
    out[r] = finish(a0, a1, a, x, whole, d);
  }
}

}  // namespace multihead::kernels::gemv_simd
