// The one place that decides which kernels run. A build compiled with -mrelaxed-simd uses the
// relaxed-SIMD kernels, one for every kernel built on multiply-adds (the GEMMs, gemv, softmax's
// exp and the activations), and the wasm_simd128 norms; one compiled with -msimd128 the
// wasm_simd128 kernels; every other build (native, the scalar WASM build) the scalar ones.
// The benchmark's baseline (-DMULTIHEAD_KERNELS=eigen) computes GEMM and softmax with Eigen.
#include "multihead/kernels.h"

namespace multihead::kernels {

const KernelSet& scalar_kernels() {
  static const KernelSet set{"scalar", f32_gemm_scalar, f32_softmax_scalar, f32_layer_norm_scalar, f32_gelu_scalar, f32_gelu_tanh_scalar,
                             f32_rms_norm_scalar, f32_silu_scalar, f32_bf16w_gemm_scalar, f32_gemv_scalar,
                             f32_bf16w_gemv_scalar};
  return set;
}

#ifdef MULTIHEAD_HAS_EIGEN_KERNELS
const KernelSet& eigen_kernels() {
  static const KernelSet set{"eigen", f32_gemm_eigen, f32_softmax_eigen, f32_layer_norm_scalar, f32_gelu_scalar, f32_gelu_tanh_scalar,
                             f32_rms_norm_scalar, f32_silu_scalar, f32_bf16w_gemm_scalar, f32_gemv_scalar,
                             f32_bf16w_gemv_scalar};
  return set;
}
#endif

const KernelSet& active_kernels() {
#if defined(MULTIHEAD_EIGEN_KERNELS)
  return eigen_kernels();
#elif defined(__wasm_relaxed_simd__)
  static const KernelSet set{"wasmrelaxedsimd", f32_gemm_wasmrelaxedsimd_2x16, f32_softmax_wasmrelaxedsimd, f32_layer_norm_wasmsimd,
                             f32_gelu_wasmrelaxedsimd, f32_gelu_tanh_wasmrelaxedsimd, f32_rms_norm_wasmsimd,
                             f32_silu_wasmrelaxedsimd, f32_bf16w_gemm_wasmrelaxedsimd, f32_gemv_wasmrelaxedsimd,
                             f32_bf16w_gemv_wasmrelaxedsimd};
  return set;
#elif defined(__wasm_simd128__)
  static const KernelSet set{"wasmsimd", f32_gemm_wasmsimd_2x16, f32_softmax_wasmsimd, f32_layer_norm_wasmsimd,
                             f32_gelu_wasmsimd, f32_gelu_tanh_wasmsimd, f32_rms_norm_wasmsimd, f32_silu_wasmsimd,
                             f32_bf16w_gemm_wasmsimd, f32_gemv_wasmsimd, f32_bf16w_gemv_wasmsimd};
  return set;
#else
  return scalar_kernels();
#endif
}

}  // namespace multihead::kernels
