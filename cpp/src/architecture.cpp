// What an architecture's table fills (architecture.h). The tables themselves are in
// architectures/, one file each.
#include "multihead/architecture.h"

namespace multihead {

std::vector<Weight> filled_weights(const TensorRule& r) {
  switch (r.layout) {
    case Layout::fused_qkv:
    case Layout::interleaved_qkv: return {Weight::wq, Weight::wk, Weight::wv};
    case Layout::fused_bias:
    case Layout::interleaved_bias: return {Weight::bq, Weight::bk, Weight::bv};
    default: return {r.weight};
  }
}

bool ArchitectureSpec::has(Weight w, bool with_head) const {
  for (const TensorRule& r : tensors) {
    if (r.part == Part::head && !with_head) continue;
    for (Weight f : filled_weights(r)) {
      if (f == w) return true;
    }
  }
  return false;
}

}  // namespace multihead
