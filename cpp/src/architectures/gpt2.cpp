// GPT-2 (model_type "gpt2"), as modeling_gpt2.py names its modules: pre-norm blocks with a causal
// mask, Conv1D weights stored (in, out), Q, K and V fused in c_attn, a final ln_f, and the LM head
// tied to wte (so nothing of the head to read: every GPT-2 file has it).
#include "multihead/architecture.h"
#include "multihead/config.h"

namespace multihead::architectures {

using L = Layout;
using W = Weight;

const ArchitectureSpec& gpt2() {
  const std::string layer = "h.{}.";
  static const ArchitectureSpec spec{
      .model_type = "gpt2",
      .name = "GPT-2",
      .block = Block::pre_norm,
      .norm = Norm::layer_norm,
      .mlp = Mlp::dense,
      .positions = Positions::learned,
      .mask = Mask::causal,
      .lm_head = LmHead::tied,
      .config = {.ints = {{"vocab_size", &ModelConfig::vocab_size, kRequired},
                          {"n_embd", &ModelConfig::hidden_size, kRequired},
                          {"n_layer", &ModelConfig::num_hidden_layers, kRequired},
                          {"n_head", &ModelConfig::num_attention_heads, kRequired},
                          {"n_inner", &ModelConfig::intermediate_size, kFourTimesHidden},
                          {"n_positions", &ModelConfig::max_position_embeddings, kRequired, "n_ctx"}},
                 .activation = "activation_function",
                 .activation_fallback = "gelu_new",
                 .eps = "layer_norm_epsilon",
                 .eps_fallback = 1e-5,
                 .required = {{"scale_attn_by_inverse_layer_idx", "false"}, {"scale_attn_weights", "true"}, {"add_cross_attention", "false"}}},
      .prefixes = {"transformer."},
      .tensors =
          {
              {"wte.weight", W::word_embeddings, L::embedding},
              {"wpe.weight", W::position_embeddings, L::embedding},
              {layer + "ln_1.weight", W::norm1_w, L::vector},
              {layer + "ln_1.bias", W::norm1_b, L::vector},
              {layer + "attn.c_attn.weight", W::wq, L::fused_qkv},
              {layer + "attn.c_attn.bias", W::bq, L::fused_bias},
              {layer + "attn.c_proj.weight", W::wo, L::conv1d},
              {layer + "attn.c_proj.bias", W::bo, L::vector},
              {layer + "ln_2.weight", W::norm2_w, L::vector},
              {layer + "ln_2.bias", W::norm2_b, L::vector},
              {layer + "mlp.c_fc.weight", W::mlp_in_w, L::conv1d},
              {layer + "mlp.c_fc.bias", W::mlp_in_b, L::vector},
              {layer + "mlp.c_proj.weight", W::mlp_out_w, L::conv1d},
              {layer + "mlp.c_proj.bias", W::mlp_out_b, L::vector},
              {"ln_f.weight", W::final_norm_w, L::vector},
              {"ln_f.bias", W::final_norm_b, L::vector},
          },
      .skipped = {"h.{}.attn.bias", "h.{}.attn.masked_bias", "lm_head.weight"},
  };
  return spec;
}

}  // namespace multihead::architectures
