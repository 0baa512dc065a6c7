// Mistral (model_type "mistral"), as transformers' modeling_mistral.py names its modules: Llama's
// block and names (llama_family.h), with every layer's attention through a sliding window of
// config.json's sliding_window keys (MistralConfig's default 4096 when absent; null for none, as in
// Mistral 7B v0.2 and later).
#include "llama_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

const ArchitectureSpec& mistral() {
  static const ArchitectureSpec spec{
      .model_type = "mistral",
      .name = "Mistral",
      .block = Block::pre_norm,
      .norm = Norm::rms_norm,
      .mlp = Mlp::gated,
      .positions = Positions::rotary,
      .mask = Mask::causal,
      .lm_head = LmHead::untied,
      .windows = Windows::every_layer,
      .config = {.ints = with_default(llama_ints(4096 * 32), &ModelConfig::num_key_value_heads, 8, kSameAsHeads),  // MistralConfig's
                 .activation = "hidden_act",
                 .activation_fallback = "silu",
                 .eps = "rms_norm_eps",
                 .eps_fallback = 1e-6,
                 .rope = llama_rope(),
                 .tie_fallback = false,
                 .window_fallback = 4096},
      .prefixes = {"model."},
      .tensors = llama_tensors(false),
      .skipped = llama_skipped(),
      .no_head_message = "model.safetensors has no lm_head.weight, and config.json's tie_word_embeddings is false",
  };
  return spec;
}

}  // namespace multihead::architectures
