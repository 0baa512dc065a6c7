// Mistral (model_type "mistral"), as transformers' modeling_mistral.py names its modules: Llama's
// block and names (llama_family.h), with every layer's attention through a sliding window of
// config.json's sliding_window keys (MistralConfig's default 4096 when absent; null for none, as in
// Mistral 7B v0.2 and later).
#include "llama_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

const ArchitectureSpec& mistral() {
  static const ArchitectureSpec spec = [] {
    ArchitectureSpec s = llama_like("mistral", "Mistral", 4096 * 32);
    s.windows = Windows::every_layer;
    // MistralConfig's defaults: 8 key/value heads when absent (all heads when null), a window of 4096.
    s.config.ints = with_default(s.config.ints, &ModelConfig::num_key_value_heads, 8, kSameAsHeads);
    s.config.window_fallback = 4096;
    return s;
  }();
  return spec;
}

}  // namespace multihead::architectures
