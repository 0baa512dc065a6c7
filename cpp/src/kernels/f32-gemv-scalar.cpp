// Scalar table-times-vector, out (rows) = T (rows, d) · x, T of float32 or bfloat16: the reference
// for f32-gemv-wasmsimd.cpp, in kernels.h's order of sums (kGemvLanes partial sums, then a fixed
// tree), so the two agree to the last bit.
#include "multihead/kernels.h"

namespace multihead::kernels {
namespace {

template <class Value>
void rows_dot(size_t rows, size_t d, const Value* table, const float* x, float* out, float (*widen)(Value)) {
  for (size_t r = 0; r < rows; ++r) {
    const Value* row = table + r * d;
    float s[kGemvLanes] = {};
    for (size_t p = 0; p < d; ++p) s[p % kGemvLanes] += widen(row[p]) * x[p];
    out[r] = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
  }
}

float plain(float v) { return v; }

}  // namespace

void f32_gemv_scalar(size_t rows, size_t d, const float* table, const float* x, float* out) { rows_dot(rows, d, table, x, out, plain); }

void f32_bf16w_gemv_scalar(size_t rows, size_t d, const uint16_t* table, const float* x, float* out) {
  rows_dot(rows, d, table, x, out, bf16_to_f32);
}

}  // namespace multihead::kernels
