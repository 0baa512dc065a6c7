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
  static const ArchitectureSpec spec{
      .model_type = "qwen3",
      .name = "Qwen3",
      .block = Block::pre_norm,
      .norm = Norm::rms_norm,
      .mlp = Mlp::gated,
      .positions = Positions::rotary,
      .mask = Mask::causal,
      .lm_head = LmHead::untied,
      // Qwen3Config: head_dim 128 when absent, hidden / heads when null.
      .config = {.ints = with_default(llama_ints(32768), &ModelConfig::head_dim, 128, kHiddenOverHeads),
                 .activation = "hidden_act",
                 .activation_fallback = "silu",
                 .eps = "rms_norm_eps",
                 .eps_fallback = 1e-6,
                 .required = {{"attention_bias", "false"}, {"use_sliding_window", "false"}},
                 .rope = llama_rope(),
                 .tie_fallback = false},
      .prefixes = {"model."},
      .tensors = [] {
        std::vector<TensorRule> t = llama_tensors(false);
        t.push_back({"layers.{}.self_attn.q_norm.weight", W::q_norm_w, L::vector});
        t.push_back({"layers.{}.self_attn.k_norm.weight", W::k_norm_w, L::vector});
        return t;
      }(),
      .skipped = llama_skipped(),
      .no_head_message = "model.safetensors has no lm_head.weight, and config.json's tie_word_embeddings is false",
  };
  return spec;
}

}  // namespace multihead::architectures
