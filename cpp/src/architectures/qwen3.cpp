// Qwen3 (model_type "qwen3"), as transformers' modeling_qwen3.py names its modules: Llama's block
// and names (llama_family.h) with an RMSNorm of each head's queries and keys (q_norm, k_norm: plain
// w, over head_dim) before RoPE, and a head_dim of its own (128 in Qwen3-0.6B, whose width is
// 1024 for 16 heads). No biases; its sliding window is off in every released checkpoint and
// refused when on.
#include "llama_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

using L = Layout;
using W = Weight;

const ArchitectureSpec& qwen3() {
  static const ArchitectureSpec spec = [] {
    ArchitectureSpec s = llama_like("qwen3", "Qwen3", 32768);
    // Qwen3Config: head_dim 128 when absent, hidden / heads when null.
    s.config.ints = with_default(s.config.ints, &ModelConfig::head_dim, 128, kHiddenOverHeads);
    s.config.required = {{"attention_bias", "false"}, {"use_sliding_window", "false"}};
    s.tensors.push_back({"layers.{}.self_attn.q_norm.weight", W::q_norm_w, L::vector});
    s.tensors.push_back({"layers.{}.self_attn.k_norm.weight", W::k_norm_w, L::vector});
    return s;
  }();
  return spec;
}

}  // namespace multihead::architectures
