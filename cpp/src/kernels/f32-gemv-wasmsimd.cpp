// WASM SIMD table-times-vector, out (rows) = T (rows, d) · x, T of float32 or bfloat16 in plain
// row-major order (the LM head reading the embedding table in place): per row, two f32x4
// accumulators take 8 values a step (a bfloat16 row's 8 widened from one 16-byte load: zero-extend
// each half to 32 bits, shift left 16), the last d mod 8 are added to their lanes one by one, and
// the lanes are summed as kernels.h says. Two rows at a time, for four independent chains. Twin of
// f32-gemv-scalar.cpp, bit-identical to it.
#include <wasm_simd128.h>

#include "multihead/kernels.h"

namespace multihead::kernels {
namespace {

// Columns p … p + 7 of a row as two f32x4.
struct Eight {
  v128_t low, high;
};
inline Eight load8(const float* row, size_t p) { return {wasm_v128_load(row + p), wasm_v128_load(row + p + 4)}; }
inline Eight load8(const uint16_t* row, size_t p) {
  const v128_t raw = wasm_v128_load(row + p);
  return {wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(raw), 16), wasm_i32x4_shl(wasm_u32x4_extend_high_u16x8(raw), 16)};
}
inline float widen(float v) { return v; }
inline float widen(uint16_t v) { return bf16_to_f32(v); }

// The row's sum from its accumulators and its tail, in kernels.h's order.
template <class Value>
inline float finish(v128_t low, v128_t high, const Value* row, const float* x, size_t from, size_t d) {
  float s[kGemvLanes];
  wasm_v128_store(s, low);
  wasm_v128_store(s + 4, high);
  for (size_t p = from; p < d; ++p) s[p % kGemvLanes] += widen(row[p]) * x[p];
  return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

template <class Value>
void rows_dot(size_t rows, size_t d, const Value* table, const float* x, float* out) {
  const size_t whole = d / kGemvLanes * kGemvLanes;
  size_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const Value* a = table + r * d;
    const Value* b = a + d;
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0, b0 = a0, b1 = a0;
    for (size_t p = 0; p < whole; p += kGemvLanes) {
      const v128_t x0 = wasm_v128_load(x + p), x1 = wasm_v128_load(x + p + 4);
      const Eight ta = load8(a, p), tb = load8(b, p);
      a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(ta.low, x0));
      a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(ta.high, x1));
      b0 = wasm_f32x4_add(b0, wasm_f32x4_mul(tb.low, x0));
      b1 = wasm_f32x4_add(b1, wasm_f32x4_mul(tb.high, x1));
    }
    out[r] = finish(a0, a1, a, x, whole, d);
    out[r + 1] = finish(b0, b1, b, x, whole, d);
  }
  for (; r < rows; ++r) {
    const Value* a = table + r * d;
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0;
    for (size_t p = 0; p < whole; p += kGemvLanes) {
      const Eight ta = load8(a, p);
      a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(ta.low, wasm_v128_load(x + p)));
      a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(ta.high, wasm_v128_load(x + p + 4)));
    }
    out[r] = finish(a0, a1, a, x, whole, d);
  }
}

}  // namespace

void f32_gemv_wasmsimd(size_t rows, size_t d, const float* table, const float* x, float* out) { rows_dot(rows, d, table, x, out); }

void f32_bf16w_gemv_wasmsimd(size_t rows, size_t d, const uint16_t* table, const float* x, float* out) {
  rows_dot(rows, d, table, x, out);
}

}  // namespace multihead::kernels
