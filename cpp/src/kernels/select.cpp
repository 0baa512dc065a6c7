// The one place that decides which kernels run. A build compiled with -mrelaxed-simd uses the
// relaxed-SIMD kernels, one for every kernel built on multiply-adds (the GEMMs, gemv, softmax's
// exp and the activations), and the wasm_simd128 norms; one compiled with -msimd128 the
// wasm_simd128 kernels; every other build (native, the scalar WASM build) the scalar ones.
// The benchmark's baseline (-DMULTIHEAD_KERNELS=eigen) computes GEMM and softmax with Eigen.
#include "multihead/kernels.h"

namespace multihead::kernels {

const KernelSet& scalar_kernels() {
  static const KernelSet set{.name = "scalar", .gemm = f32_gemm_scalar, .softmax = f32_softmax_scalar,
                             .layer_norm = f32_layer_norm_scalar, .gelu = f32_gelu_scalar,
                             .gelu_tanh = f32_gelu_tanh_scalar, .rms_norm = f32_rms_norm_scalar,
                             .silu = f32_silu_scalar, .gemm_bf16 = f32_bf16w_gemm_scalar, .gemv = f32_gemv_scalar,
                             .gemv_bf16 = f32_bf16w_gemv_scalar};
  return set;
}

#ifdef MULTIHEAD_HAS_EIGEN_KERNELS
const KernelSet& eigen_kernels() {
  static const KernelSet set{.name = "eigen", .gemm = f32_gemm_eigen, .softmax = f32_softmax_eigen,
                             .layer_norm = f32_layer_norm_scalar, .gelu = f32_gelu_scalar,
                             .gelu_tanh = f32_gelu_tanh_scalar, .rms_norm = f32_rms_norm_scalar,
                             .silu = f32_silu_scalar, .gemm_bf16 = f32_bf16w_gemm_scalar, .gemv = f32_gemv_scalar,
                             .gemv_bf16 = f32_bf16w_gemv_scalar};
  return set;
}
#endif

const KernelSet& active_kernels() {
#if defined(MULTIHEAD_EIGEN_KERNELS)
  return eigen_kernels();
#elif defined(__wasm_relaxed_simd__)
  static const KernelSet set{.name = "wasmrelaxedsimd", .gemm = f32_gemm_wasmrelaxedsimd_2x16,
                             .softmax = f32_softmax_wasmrelaxedsimd, .layer_norm = f32_layer_norm_wasmsimd,
                             .gelu = f32_gelu_wasmrelaxedsimd, .gelu_tanh = f32_gelu_tanh_wasmrelaxedsimd,
                             .rms_norm = f32_rms_norm_wasmsimd, .silu = f32_silu_wasmrelaxedsimd,
                             .gemm_bf16 = f32_bf16w_gemm_wasmrelaxedsimd, .gemv = f32_gemv_wasmrelaxedsimd,
                             .gemv_bf16 = f32_bf16w_gemv_wasmrelaxedsimd};
  return set;
#elif defined(__wasm_simd128__)
  static const KernelSet set{.name = "wasmsimd", .gemm = f32_gemm_wasmsimd_2x16, .softmax = f32_softmax_wasmsimd,
                             .layer_norm = f32_layer_norm_wasmsimd, .gelu = f32_gelu_wasmsimd,
                             .gelu_tanh = f32_gelu_tanh_wasmsimd, .rms_norm = f32_rms_norm_wasmsimd,
                             .silu = f32_silu_wasmsimd, .gemm_bf16 = f32_bf16w_gemm_wasmsimd,
                             .gemv = f32_gemv_wasmsimd, .gemv_bf16 = f32_bf16w_gemv_wasmsimd};
  return set;
#else
  return scalar_kernels();
#endif
}

}  // namespace multihead::kernels
