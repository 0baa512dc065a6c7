// Gemma 3's text model (model_type "gemma3_text": gemma-3-270m, gemma-3-1b), as transformers'
// modeling_gemma3.py names Gemma3ForCausalLM's modules. Llama's names and gated MLP (with tanh GELU),
// and besides:
// - every RMSNorm multiplies by (1 + w): input, post-attention, pre- and post-feedforward, q/k, final;
// - a sandwich block: post_attention_layernorm normalises the attention's output before the
//   residual add (in Llama that name is the pre-MLP norm, here pre_feedforward_layernorm), and
//   post_feedforward_layernorm the MLP's;
// - the embeddings are multiplied by √hidden_size, rounded to their stored dtype;
// - each head's queries and keys are normalised before RoPE;
// - the scores are scaled by query_pre_attn_scalar^−½;
// - sliding layers (layer_types, or every layer but each sliding_window_pattern-th) see the last
//   sliding_window keys and rotate with their own base (rope_local_base_freq, or v5's
//   rope_parameters.sliding_attention);
// - soft caps on the scores and the logits when the config has them (Gemma 3's are null);
// - the head is tied to the embeddings unless tie_word_embeddings is false.
#include "llama_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

using L = Layout;
using W = Weight;

const ArchitectureSpec& gemma3() {
  static const RopeFields rope{.theta = "rope_theta", .theta_fallback = 1000000.0, .fraction = "partial_rotary_factor",
                               .sliding_theta = "rope_local_base_freq", .sliding_theta_fallback = 10000.0};
  const std::string layer = "layers.{}.";
  static const ArchitectureSpec spec{
      .model_type = "gemma3_text",
      .name = "Gemma 3",
      .block = Block::sandwich,
      .norm = Norm::rms_norm_one_plus,
      .mlp = Mlp::gated,
      .positions = Positions::rotary,
      .mask = Mask::causal,
      .lm_head = LmHead::untied,
      .windows = Windows::by_layer_type,
      .embedding_scale = EmbeddingScale::sqrt_hidden,
      // Gemma3TextConfig's defaults where a config leaves a field out.
      .config = {.ints = with_default(with_default(llama_ints(131072), &ModelConfig::num_key_value_heads, 4, kSameAsHeads),
                                      &ModelConfig::head_dim, 256, kRequired),
                 .activation = "hidden_activation",
                 .activation_fallback = "gelu_pytorch_tanh",
                 .eps = "rms_norm_eps",
                 .eps_fallback = 1e-6,
                 .required = {{"attention_bias", "false"}, {"use_bidirectional_attention", "false"}},
                 .rope = &rope,
                 .tie_fallback = true,
                 .window_fallback = 4096,
                 .query_scalar = "query_pre_attn_scalar",
                 .query_scalar_fallback = 256,
                 .softcaps = true},
      .prefixes = {"model."},
      .tensors =
          {
              {"embed_tokens.weight", W::word_embeddings, L::embedding},
              {layer + "input_layernorm.weight", W::norm1_w, L::vector},
              {layer + "self_attn.q_proj.weight", W::wq, L::linear},
              {layer + "self_attn.k_proj.weight", W::wk, L::linear},
              {layer + "self_attn.v_proj.weight", W::wv, L::linear},
              {layer + "self_attn.o_proj.weight", W::wo, L::linear},
              {layer + "self_attn.q_norm.weight", W::q_norm_w, L::vector},
              {layer + "self_attn.k_norm.weight", W::k_norm_w, L::vector},
              {layer + "post_attention_layernorm.weight", W::attn_out_norm_w, L::vector},
              {layer + "pre_feedforward_layernorm.weight", W::norm2_w, L::vector},
              {layer + "post_feedforward_layernorm.weight", W::mlp_out_norm_w, L::vector},
              {layer + "mlp.gate_proj.weight", W::mlp_gate_w, L::linear},
              {layer + "mlp.up_proj.weight", W::mlp_in_w, L::linear},
              {layer + "mlp.down_proj.weight", W::mlp_out_w, L::linear},
              {"norm.weight", W::final_norm_w, L::vector},
              {"lm_head.weight", W::lm_head, L::embedding, Part::head},
          },
      .skipped = {"layers.{}.self_attn.rotary_emb.inv_freq"},
      .no_head_message = "model.safetensors has no lm_head.weight, and config.json's tie_word_embeddings is false",
  };
  return spec;
}

}  // namespace multihead::architectures
