// Llama (model_type "llama": SmolLM2, TinyLlama, Llama 2 and 3.x), as transformers'
// modeling_llama.py names its modules: pre-norm blocks with RMSNorm, grouped-query attention
// with rotary positions (rope_scaling "linear" or "llama3"), a gated SiLU MLP, a final norm, and
// an LM head of its own unless tie_word_embeddings (SmolLM2, Llama 3.2) ties it to embed_tokens.
// Also the parts Qwen2 and Mistral share (llama_family.h).
#include "llama_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

using L = Layout;
using W = Weight;

std::vector<TensorRule> llama_tensors(bool qkv_bias) {
  const std::string layer = "layers.{}.";
  std::vector<TensorRule> t = {
      {"embed_tokens.weight", W::word_embeddings, L::embedding},
      {layer + "input_layernorm.weight", W::norm1_w, L::vector},
      {layer + "self_attn.q_proj.weight", W::wq, L::linear},
      {layer + "self_attn.k_proj.weight", W::wk, L::linear},
      {layer + "self_attn.v_proj.weight", W::wv, L::linear},
      {layer + "self_attn.o_proj.weight", W::wo, L::linear},
      {layer + "post_attention_layernorm.weight", W::norm2_w, L::vector},
      {layer + "mlp.gate_proj.weight", W::mlp_gate_w, L::linear},
      {layer + "mlp.up_proj.weight", W::mlp_in_w, L::linear},
      {layer + "mlp.down_proj.weight", W::mlp_out_w, L::linear},
      {"norm.weight", W::final_norm_w, L::vector},
      {"lm_head.weight", W::lm_head, L::embedding, Part::head},
  };
  if (qkv_bias) {
    t.push_back({layer + "self_attn.q_proj.bias", W::bq, L::vector});
    t.push_back({layer + "self_attn.k_proj.bias", W::bk, L::vector});
    t.push_back({layer + "self_attn.v_proj.bias", W::bv, L::vector});
  }
  return t;
}

std::vector<IntField> llama_ints(int positions) {
  return {
      {"vocab_size", &ModelConfig::vocab_size, kRequired},
      {"hidden_size", &ModelConfig::hidden_size, kRequired},
      {"num_hidden_layers", &ModelConfig::num_hidden_layers, kRequired},
      {"num_attention_heads", &ModelConfig::num_attention_heads, kRequired},
      {"num_key_value_heads", &ModelConfig::num_key_value_heads, kSameAsHeads},
      {"head_dim", &ModelConfig::head_dim, kHiddenOverHeads},
      {"intermediate_size", &ModelConfig::intermediate_size, kRequired},
      {"max_position_embeddings", &ModelConfig::max_position_embeddings, positions},
  };
}

std::vector<IntField> with_default(std::vector<IntField> ints, int ModelConfig::*member, int fallback, int if_null) {
  for (IntField& f : ints) {
    if (f.member == member) f = {f.name, f.member, fallback, f.older, if_null};
  }
  return ints;
}

const RopeFields* llama_rope() {
  static const RopeFields fields{.theta = "rope_theta", .theta_fallback = 10000.0, .fraction = "partial_rotary_factor"};
  return &fields;
}

ArchitectureSpec llama_like(const char* model_type, const char* name, int positions) {
  return {
      .model_type = model_type,
      .name = name,
      .block = Block::pre_norm,
      .norm = Norm::rms_norm,
      .mlp = Mlp::gated,
      .positions = Positions::rotary,
      .mask = Mask::causal,
      .lm_head = LmHead::untied,
      .config = {.ints = llama_ints(positions),
                 .activation = "hidden_act",
                 .activation_fallback = "silu",
                 .eps = "rms_norm_eps",
                 .eps_fallback = 1e-6,
                 .rope = llama_rope(),
                 .tie_fallback = false},
      .prefixes = {"model."},
      .tensors = llama_tensors(false),
      .skipped = {"layers.{}.self_attn.rotary_emb.inv_freq"},
      .no_head_message = "model.safetensors has no lm_head.weight, and config.json's tie_word_embeddings is false",
  };
}

const ArchitectureSpec& llama() {
  static const ArchitectureSpec spec = [] {
    ArchitectureSpec s = llama_like("llama", "Llama", 2048);  // LlamaConfig's max_position_embeddings
    s.config.required = {{"attention_bias", "false"}, {"mlp_bias", "false"}};
    return s;
  }();
  return spec;
}

}  // namespace multihead::architectures
