// Qwen2 (model_type "qwen2": Qwen2 and Qwen2.5), as transformers' modeling_qwen2.py names its
// modules: Llama's block and names (llama_family.h), with biases on q_proj, k_proj and v_proj but
// not o_proj. Its sliding window is off in every released checkpoint (use_sliding_window false),
// and refused when on.
#include "llama_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

const ArchitectureSpec& qwen2() {
  static const ArchitectureSpec spec{
      .model_type = "qwen2",
      .name = "Qwen2",
      .block = Block::pre_norm,
      .norm = Norm::rms_norm,
      .mlp = Mlp::gated,
      .positions = Positions::rotary,
      .mask = Mask::causal,
      .lm_head = LmHead::untied,
      .config = {.ints = llama_ints(32768),
                 .activation = "hidden_act",
                 .activation_fallback = "silu",
                 .eps = "rms_norm_eps",
                 .eps_fallback = 1e-6,
                 .required = {{"use_sliding_window", "false"}},
                 .rope = llama_rope(),
                 .tie_fallback = false},
      .prefixes = {"model."},
      .tensors = llama_tensors(true),
      .skipped = llama_skipped(),
      .no_head_message = "model.safetensors has no lm_head.weight, and config.json's tie_word_embeddings is false",
  };
  return spec;
}

}  // namespace multihead::architectures
