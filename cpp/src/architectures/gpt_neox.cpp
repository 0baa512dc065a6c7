// GPT-NeoX (model_type "gpt_neox": Pythia), as transformers' modeling_gpt_neox.py names its
// modules: parallel blocks, x + attention(input_layernorm(x)) + mlp(post_attention_layernorm(x)),
// with LayerNorms (weight and bias) and erf GELU; query_key_value fused and interleaved head by head
// (Layout::interleaved_qkv), with biases; RoPE on the first rotary_pct of each head (16 of
// Pythia's 64 dimensions, pairing i with i + 8), base rotary_emb_base; a final_layer_norm; and
// embed_out, an LM head of its own. Each layer's attention.bias (a bool or U8 causal mask),
// attention.masked_bias (a 0-d scalar) and rotary_emb.inv_freq are buffers, skipped whatever their
// dtype.
#include "multihead/architecture.h"
#include "multihead/config.h"

namespace multihead::architectures {

using L = Layout;
using W = Weight;

const ArchitectureSpec& gpt_neox() {
  static const RopeFields rope{.theta = "rotary_emb_base", .theta_fallback = 10000.0, .fraction = "rotary_pct", .fraction_fallback = 0.25};
  const std::string layer = "layers.{}.";
  static const ArchitectureSpec spec{
      .model_type = "gpt_neox",
      .name = "GPT-NeoX",
      .block = Block::parallel,
      .norm = Norm::layer_norm,
      .mlp = Mlp::dense,
      .positions = Positions::rotary,
      .mask = Mask::causal,
      .lm_head = LmHead::untied,
      .config = {.ints = {{"vocab_size", &ModelConfig::vocab_size, kRequired},
                          {"hidden_size", &ModelConfig::hidden_size, kRequired},
                          {"num_hidden_layers", &ModelConfig::num_hidden_layers, kRequired},
                          {"num_attention_heads", &ModelConfig::num_attention_heads, kRequired},
                          {"intermediate_size", &ModelConfig::intermediate_size, kRequired},
                          {"max_position_embeddings", &ModelConfig::max_position_embeddings, 2048}},
                 .activation = "hidden_act",
                 .activation_fallback = "gelu",
                 .eps = "layer_norm_eps",
                 .eps_fallback = 1e-5,
                 .required = {{"use_parallel_residual", "true"}, {"attention_bias", "true"}},
                 .rope = &rope,
                 .tie_fallback = false},
      .prefixes = {"gpt_neox."},
      .tensors =
          {
              {"embed_in.weight", W::word_embeddings, L::embedding},
              {layer + "input_layernorm.weight", W::norm1_w, L::vector},
              {layer + "input_layernorm.bias", W::norm1_b, L::vector},
              {layer + "attention.query_key_value.weight", W::wq, L::interleaved_qkv},
              {layer + "attention.query_key_value.bias", W::bq, L::interleaved_bias},
              {layer + "attention.dense.weight", W::wo, L::linear},
              {layer + "attention.dense.bias", W::bo, L::vector},
              {layer + "post_attention_layernorm.weight", W::norm2_w, L::vector},
              {layer + "post_attention_layernorm.bias", W::norm2_b, L::vector},
              {layer + "mlp.dense_h_to_4h.weight", W::mlp_in_w, L::linear},
              {layer + "mlp.dense_h_to_4h.bias", W::mlp_in_b, L::vector},
              {layer + "mlp.dense_4h_to_h.weight", W::mlp_out_w, L::linear},
              {layer + "mlp.dense_4h_to_h.bias", W::mlp_out_b, L::vector},
              {"final_layer_norm.weight", W::final_norm_w, L::vector},
              {"final_layer_norm.bias", W::final_norm_b, L::vector},
              {"embed_out.weight", W::lm_head, L::embedding, Part::head},
          },
      .skipped = {"layers.{}.attention.bias", "layers.{}.attention.masked_bias", "layers.{}.attention.rotary_emb.inv_freq"},
      .no_head_message = "model.safetensors has no embed_out.weight, and config.json's tie_word_embeddings is false",
  };
  return spec;
}

}  // namespace multihead::architectures
