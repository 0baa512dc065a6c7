// T5 (model_type "t5": t5-small, Flan-T5), as transformers' modeling_t5.py names its modules: an
// encoder and a decoder of pre-norm blocks over shared embeddings, RMS-style LayerNorm (no mean,
// no bias), no 1/√d scale on the scores, no absolute positions but a relative position bias per
// head (block 0's table, bidirectional buckets in the encoder and causal in the decoder, reused by
// every block; cross-attention has none), a ReLU or gated-GELU MLP by feed_forward_proj, a final
// norm in each stack, and the head tied and scaled by d_model^−½, or an untied lm_head.
#include "multihead/config.h"

namespace multihead::architectures {

namespace {

using L = Layout;
using W = Weight;

// One stack's blocks: layer.0 is the self-attention; a decoder's layer.1 the cross-attention
// (EncDecAttention); the last, the feed-forward (DenseReluDense), each with its norm.
void add_blocks(std::vector<TensorRule>& t, const std::string& name, Stack stack) {
  const std::string block = name + ".block.{}.layer.";
  const auto rule = [&](const std::string& module, W w, L layout, Stack s, When when = When::always) {
    t.push_back({.name = block + module + ".weight", .weight = w, .layout = layout, .stack = s, .when = when});
  };
  const auto attention = [&](const std::string& module, Stack s) {
    rule(module + ".q", W::wq, L::linear, s);
    rule(module + ".k", W::wk, L::linear, s);
    rule(module + ".v", W::wv, L::linear, s);
    rule(module + ".o", W::wo, L::linear, s);
  };
  attention("0.SelfAttention", stack);
  rule("0.layer_norm", W::norm1_w, L::vector, stack);
  const std::string mlp = stack == Stack::decoder ? "2" : "1";
  if (stack == Stack::decoder) {
    attention("1.EncDecAttention", Stack::cross);
    rule("1.layer_norm", W::norm1_w, L::vector, Stack::cross);
  }
  rule(mlp + ".DenseReluDense.wi", W::mlp_in_w, L::linear, stack, When::dense_mlp);
  rule(mlp + ".DenseReluDense.wi_0", W::mlp_gate_w, L::linear, stack, When::gated_mlp);  // through the activation
  rule(mlp + ".DenseReluDense.wi_1", W::mlp_in_w, L::linear, stack, When::gated_mlp);
  rule(mlp + ".DenseReluDense.wo", W::mlp_out_w, L::linear, stack);
  rule(mlp + ".layer_norm", W::norm2_w, L::vector, stack);
  t.push_back({.name = name + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight", .weight = W::relative_bias,
               .layout = L::embedding, .stack = stack});
  t.push_back({.name = name + ".final_layer_norm.weight", .weight = W::final_norm_w, .layout = L::vector, .stack = stack});
}

std::vector<IntField> t5_ints() {  // T5Config's defaults, which are t5-small's
  return {
      {"vocab_size", &ModelConfig::vocab_size, 32128},
      {"d_model", &ModelConfig::hidden_size, 512},
      {"num_layers", &ModelConfig::num_hidden_layers, 6},
      {"num_decoder_layers", &ModelConfig::num_decoder_layers, kSameAsLayers},
      {"num_heads", &ModelConfig::num_attention_heads, 8},
      {"d_kv", &ModelConfig::head_dim, 64},
      {"d_ff", &ModelConfig::intermediate_size, 2048},
      {"n_positions", &ModelConfig::max_position_embeddings, 512},
      {"relative_attention_num_buckets", &ModelConfig::relative_buckets, 32},
      {"relative_attention_max_distance", &ModelConfig::relative_max_distance, 128},
  };
}

}  // namespace

const ArchitectureSpec& t5() {
  static const ArchitectureSpec spec{
      .model_type = "t5",
      .name = "T5",
      .block = Block::pre_norm,
      .norm = Norm::rms_norm,
      .mlp = Mlp::dense,  // feed_forward_proj says which
      .positions = Positions::relative,
      .mask = Mask::bidirectional,
      .lm_head = LmHead::untied,
      .stacks = Stacks::encoder_decoder,
      .head_scale = HeadScale::rsqrt_hidden_when_tied,
      .config = {.ints = t5_ints(), .activation = "dense_act_fn", .activation_fallback = "relu", .eps = "layer_norm_epsilon",
                 .eps_fallback = 1e-6, .tie_fallback = true, .unscaled_scores = true, .feed_forward_proj = "feed_forward_proj"},
      .tensors = [] {
        std::vector<TensorRule> t = {{.name = "shared.weight", .weight = W::word_embeddings, .layout = L::embedding}};
        add_blocks(t, "encoder", Stack::encoder);
        add_blocks(t, "decoder", Stack::decoder);
        t.push_back({.name = "lm_head.weight", .weight = W::lm_head, .layout = L::embedding, .part = Part::head});
        return t;
      }(),
      .duplicates = {{"encoder.embed_tokens.weight", "shared.weight"}, {"decoder.embed_tokens.weight", "shared.weight"}},
      // Old checkpoints' relative bias in the first cross-attention, which transformers never loads.
      .skipped = {"decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"},
      .no_head_message = "model.safetensors has no lm_head.weight, and config.json's tie_word_embeddings is false",
  };
  return spec;
}

}  // namespace multihead::architectures
