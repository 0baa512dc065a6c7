// Qwen2 (model_type "qwen2": Qwen2 and Qwen2.5), as transformers' modeling_qwen2.py names its
// modules: Llama's block and names (llama_family.h), with biases on q_proj, k_proj and v_proj but
// not o_proj. Its sliding window is off in every released checkpoint (use_sliding_window false),
// and refused when on.
#include "llama_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

const ArchitectureSpec& qwen2() {
  static const ArchitectureSpec spec = [] {
    ArchitectureSpec s = llama_like("qwen2", "Qwen2", 32768);
    s.config.required = {{"use_sliding_window", "false"}};
    s.tensors = llama_tensors(true);
    return s;
  }();
  return spec;
}

}  // namespace multihead::architectures
