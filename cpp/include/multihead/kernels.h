// The hot loops of attention. Each kernel has a plain scalar reference and a wasm_simd128 twin
// with the same signature; src/kernels/select.cpp decides which set runs.
//
// Kernels take raw row-major buffers with explicit leading dimensions (floats from one row to
// the next), so one head's columns of Q, K and V are read in place. They do not validate their
// arguments and never allocate: MultiHeadAttention checks shapes before calling them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace multihead::kernels {

// C = A·B + bias.  A (m, k) stride lda;  B (k, n) stride ldb;  bias (n) or nullptr;  C (m, n) stride ldc.
using GemmFn = void (*)(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                        size_t ldb, const float* bias, float* c, size_t ldc);

// S = scale·Q·Kᵀ, masked.  Q (m, d) stride ldq;  K (n, d) stride ldk;  S (m, n) stride lds.
// key_mask (n): nonzero = visible, or nullptr for all visible. causal hides key j from query i when
// j > i. Hidden scores are -infinity, as in PyTorch.
using ScoresFn = void (*)(size_t m, size_t n, size_t d, float scale, const float* q, size_t ldq,
                          const float* k, size_t ldk, const uint8_t* key_mask, bool causal, float* s,
                          size_t lds);

// P = softmax of each row of S.  S, P (m, n) with their strides; P may be S (in place).
// The row maximum is subtracted first so exp never overflows; a row that is all -infinity
// (every key hidden) becomes zeros instead of NaN.
using SoftmaxFn = void (*)(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp);

// O = P·V.  P (m, n) stride ldp;  V (n, d) stride ldv;  O (m, d) stride ldo.
// causal promises P[i][j] = 0 for j > i, so those terms may be skipped.
using WeightedSumFn = void (*)(size_t m, size_t n, size_t d, const float* p, size_t ldp,
                               const float* v, size_t ldv, bool causal, float* o, size_t ldo);

// Y = layer normalisation of each row of X: (x − mean)/√(variance + eps)·gamma + beta.
// X, Y (m, n) with their strides, Y may be X; gamma, beta (n).
using LayerNormFn = void (*)(size_t m, size_t n, const float* x, size_t ldx, const float* gamma,
                             const float* beta, float eps, float* y, size_t ldy);

// y = GELU(x) elementwise, erf form. x, y (count), y may be x.
using GeluFn = void (*)(size_t count, const float* x, float* y);

void f32_gemm_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                     size_t ldb, const float* bias, float* c, size_t ldc);
void f32_scores_scalar(size_t m, size_t n, size_t d, float scale, const float* q, size_t ldq,
                       const float* k, size_t ldk, const uint8_t* key_mask, bool causal, float* s,
                       size_t lds);
void f32_softmax_scalar(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp);
void f32_weighted_sum_scalar(size_t m, size_t n, size_t d, const float* p, size_t ldp,
                             const float* v, size_t ldv, bool causal, float* o, size_t ldo);
void f32_layer_norm_scalar(size_t m, size_t n, const float* x, size_t ldx, const float* gamma,
                           const float* beta, float eps, float* y, size_t ldy);
void f32_gelu_scalar(size_t count, const float* x, float* y);

#ifdef __wasm_simd128__
void f32_gemm_wasmsimd_4x8(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                           size_t ldb, const float* bias, float* c, size_t ldc);
void f32_scores_wasmsimd_1x4(size_t m, size_t n, size_t d, float scale, const float* q, size_t ldq,
                             const float* k, size_t ldk, const uint8_t* key_mask, bool causal,
                             float* s, size_t lds);
void f32_softmax_wasmsimd(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp);
void f32_weighted_sum_wasmsimd_4x8(size_t m, size_t n, size_t d, const float* p, size_t ldp,
                                   const float* v, size_t ldv, bool causal, float* o, size_t ldo);
void f32_layer_norm_wasmsimd(size_t m, size_t n, const float* x, size_t ldx, const float* gamma,
                             const float* beta, float eps, float* y, size_t ldy);
void f32_gelu_wasmsimd(size_t count, const float* x, float* y);
#endif

// One complete set of kernels, named for reports ("scalar", "wasmsimd").
struct KernelSet {
  const char* name;
  GemmFn gemm;
  ScoresFn scores;
  SoftmaxFn softmax;
  WeightedSumFn weighted_sum;
  LayerNormFn layer_norm;
  GeluFn gelu;
};

const KernelSet& scalar_kernels();
// The set the engine uses: wasmsimd when compiled with -msimd128, otherwise scalar.
const KernelSet& active_kernels();

}  // namespace multihead::kernels
