// The hot loops of attention. Each kernel has a plain scalar reference and a wasm_simd128 twin
// with the same signature; src/kernels/select.cpp decides which set runs.
//
// Kernels take raw row-major buffers with explicit leading dimensions (floats from one row to
// the next), so one head's columns of Q, K and V are read in place. They do not validate their
// arguments and never allocate: MultiHeadAttention checks shapes before calling them.
// Attention's two products are GEMMs too: scores = Q_i·(scale·K_i)ᵀ with K_i packed transposed and
// scaled, and the head output = A_i·V_i with V_i packed; one tuned kernel serves all of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace multihead::kernels {

// GEMM reads B packed: panels of kPanelWidth columns, each panel k rows of kPanelWidth floats,
// zero-padded past the last column. Packing once makes every later read of B contiguous, and
// weights are packed once when a layer is built. pack_b is shared by every kernel set.
constexpr size_t kPanelWidth = 16;

// Floats a packed (k, n) operand takes, and the distance between its panels.
inline size_t packed_size(size_t k, size_t n) { return (n + kPanelWidth - 1) / kPanelWidth * kPanelWidth * k; }
inline size_t panel_stride(size_t k) { return kPanelWidth * k; }

// Packs scale·B, B (k, n) with element (p, j) at b[p·row_stride + j·col_stride], so a transpose
// (col_stride > 1) packs as cheaply as B itself. Panel q starts at out + q·kPanelWidth·k.
void pack_b(size_t k, size_t n, const float* b, size_t row_stride, size_t col_stride, float scale, float* out);

// bfloat16 weights: B's values as the upper 16 bits of the float32s they stand for, packed by
// pack_b_bf16 in pack_b's panels (kPanelWidth values per row of a panel), half the bytes. Widening
// one is exact, so a bfloat16 checkpoint's weights stay as they are in memory. Within each 8
// columns of a panel row the values are stored c0 c4 c1 c5 c2 c6 c3 c7 (bf16_slot), so that a
// 16-byte load widens to columns 0–3 by one 32-bit shift and to 4–7 by one mask.
inline float bf16_to_f32(uint16_t bits) {
  const uint32_t wide = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}
void pack_b_bf16(size_t k, size_t n, const uint16_t* b, size_t row_stride, size_t col_stride, uint16_t* out);
// Where column c (of a panel's kPanelWidth) is stored in a row of a bfloat16 panel.
constexpr size_t bf16_slot(size_t c) { return c / 8 * 8 + (c % 8 < 4 ? 2 * (c % 8) : 2 * (c % 8 - 4) + 1); }

// C = A·B + bias.  A (m, k) stride lda;  B packed by pack_b from a (k_packed, n) operand with
// k ≤ k_packed, passed as its panel stride kPanelWidth·k_packed (so the first k rows of a packed
// operand can be used alone);  bias (n) or nullptr;  C (m, n) stride ldc.
using GemmFn = void (*)(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                        size_t panel_stride, const float* bias, float* c, size_t ldc);

// The same with B's values bfloat16 (pack_b_bf16): each widened as it is read, then accumulated as
// GemmFn accumulates, so the result is GemmFn's on the widened B, to the last bit.
using Bf16GemmFn = void (*)(size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed,
                            size_t panel_stride, const float* bias, float* c, size_t ldc);

// out (rows) = T (rows, d) · x (d): a table read in place, row-major (an embedding table as the
// LM head, one row per vocabulary entry), of float32 or of bfloat16 in plain order (not
// pack_b_bf16's). Each out[r] is summed in kGemvLanes partial sums, value p in sum p mod 8, each
// in order of p, then s0 … s7 added as ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)): the
// order two f32x4 accumulators give. A bfloat16 table gives what its widened float32 one gives.
constexpr size_t kGemvLanes = 8;
using GemvFn = void (*)(size_t rows, size_t d, const float* table, const float* x, float* out);
using Bf16GemvFn = void (*)(size_t rows, size_t d, const uint16_t* table, const float* x, float* out);

// P = softmax of each row of S.  S, P (m, n) with their strides; P may be S (in place).
// The row maximum is subtracted first so exp never overflows; a row that is all -infinity
// (every key hidden) becomes zeros instead of NaN.
using SoftmaxFn = void (*)(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp);

// Y = layer normalisation of each row of X: (x − mean)/√(variance + eps)·gamma + beta.
// X, Y (m, n) with their strides, Y may be X; gamma, beta (n).
using LayerNormFn = void (*)(size_t m, size_t n, const float* x, size_t ldx, const float* gamma,
                             const float* beta, float eps, float* y, size_t ldy);

// Y = RMS normalisation of each row of X: x/√(mean(x²) + eps)·weight. X, Y (m, n) with their
// strides, Y may be X; weight (n).
using RmsNormFn = void (*)(size_t m, size_t n, const float* x, size_t ldx, const float* weight, float eps, float* y, size_t ldy);

// y = an activation of x elementwise: GELU, erf form (BERT's "gelu") or tanh form (GPT-2's
// "gelu_new"), or SiLU, x·σ(x) (Llama's "silu"). x, y (count), y may be x.
using GeluFn = void (*)(size_t count, const float* x, float* y);

void f32_gemm_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                     size_t panel_stride, const float* bias, float* c, size_t ldc);
void f32_bf16w_gemm_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed,
                           size_t panel_stride, const float* bias, float* c, size_t ldc);
void f32_softmax_scalar(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp);
void f32_layer_norm_scalar(size_t m, size_t n, const float* x, size_t ldx, const float* gamma,
                           const float* beta, float eps, float* y, size_t ldy);
void f32_rms_norm_scalar(size_t m, size_t n, const float* x, size_t ldx, const float* weight, float eps, float* y, size_t ldy);
void f32_gelu_scalar(size_t count, const float* x, float* y);
void f32_gelu_tanh_scalar(size_t count, const float* x, float* y);
void f32_silu_scalar(size_t count, const float* x, float* y);
void f32_gemv_scalar(size_t rows, size_t d, const float* table, const float* x, float* out);
void f32_bf16w_gemv_scalar(size_t rows, size_t d, const uint16_t* table, const float* x, float* out);

#ifdef __wasm_simd128__
void f32_gemm_wasmsimd_2x16(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                            size_t panel_stride, const float* bias, float* c, size_t ldc);
void f32_bf16w_gemm_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed,
                             size_t panel_stride, const float* bias, float* c, size_t ldc);
void f32_softmax_wasmsimd(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp);
void f32_layer_norm_wasmsimd(size_t m, size_t n, const float* x, size_t ldx, const float* gamma,
                             const float* beta, float eps, float* y, size_t ldy);
void f32_rms_norm_wasmsimd(size_t m, size_t n, const float* x, size_t ldx, const float* weight, float eps, float* y, size_t ldy);
void f32_gelu_wasmsimd(size_t count, const float* x, float* y);
void f32_gelu_tanh_wasmsimd(size_t count, const float* x, float* y);
void f32_silu_wasmsimd(size_t count, const float* x, float* y);
void f32_gemv_wasmsimd(size_t rows, size_t d, const float* table, const float* x, float* out);
void f32_bf16w_gemv_wasmsimd(size_t rows, size_t d, const uint16_t* table, const float* x, float* out);
#endif

#ifdef __wasm_relaxed_simd__  // fused multiply-add where the engine fuses: twins of the scalar kernels to rounding
void f32_gemm_wasmrelaxedsimd_2x16(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                                   size_t panel_stride, const float* bias, float* c, size_t ldc);
void f32_bf16w_gemm_wasmrelaxedsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed,
                                    size_t panel_stride, const float* bias, float* c, size_t ldc);
void f32_softmax_wasmrelaxedsimd(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp);
void f32_gelu_wasmrelaxedsimd(size_t count, const float* x, float* y);
void f32_gelu_tanh_wasmrelaxedsimd(size_t count, const float* x, float* y);
void f32_silu_wasmrelaxedsimd(size_t count, const float* x, float* y);
void f32_gemv_wasmrelaxedsimd(size_t rows, size_t d, const float* table, const float* x, float* out);
void f32_bf16w_gemv_wasmrelaxedsimd(size_t rows, size_t d, const uint16_t* table, const float* x, float* out);
#endif

#ifdef MULTIHEAD_HAS_EIGEN_KERNELS  // the benchmark's baseline; also built natively, for the tests
void f32_gemm_eigen(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                    size_t panel_stride, const float* bias, float* c, size_t ldc);
void f32_softmax_eigen(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp);
#endif

// One complete set of kernels, named for reports ("scalar", "wasmsimd", "eigen").
struct KernelSet {
  const char* name;
  GemmFn gemm;
  SoftmaxFn softmax;
  LayerNormFn layer_norm;
  GeluFn gelu;
  GeluFn gelu_tanh;
  RmsNormFn rms_norm;
  GeluFn silu;
  Bf16GemmFn gemm_bf16;
  GemvFn gemv;
  Bf16GemvFn gemv_bf16;
};

const KernelSet& scalar_kernels();
#ifdef MULTIHEAD_HAS_EIGEN_KERNELS
const KernelSet& eigen_kernels();
#endif
// The set the engine uses: wasmsimd when compiled with -msimd128, otherwise scalar; eigen in the
// benchmark's baseline build.
const KernelSet& active_kernels();

}  // namespace multihead::kernels
