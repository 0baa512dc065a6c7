// WASM SIMD row softmax (f32-softmax-simd.h), each multiply-add of its exp a multiply and an add.
// Twin of f32-softmax-scalar.cpp.
#include "multihead/kernels.h"
#include "f32-softmax-simd.h"

namespace multihead::kernels {

void f32_softmax_wasmsimd(size_t m, size_t n, const float* s, size_t lds, float* p, size_t ldp) {
  softmax_simd::softmax<MulAdd>(m, n, s, lds, p, ldp);
}

}  // namespace multihead::kernels
