// BART (model_type "bart"), as transformers' modeling_bart.py names its modules: an encoder and a
// decoder of post-norm blocks over shared embeddings, learned positions read at position + 2 in
// each stack, a LayerNorm after the embeddings (layernorm_embedding), GELU, biases on q, k, v and
// out, and BartForConditionalGeneration's tied head plus final_logits_bias. Also the parts Marian
// shares (bart_family.h).
#include "bart_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

using L = Layout;
using W = Weight;

namespace {

// One stack's layers: `name` is "encoder" or "decoder"; a decoder's also have encoder_attn, the
// cross-attention, and its norm.
void add_layers(std::vector<TensorRule>& t, const std::string& name, Stack stack) {
  const std::string layer = name + ".layers.{}.";
  const auto linear = [&](const std::string& module, W w, W b, Stack s) {
    t.push_back({.name = layer + module + ".weight", .weight = w, .layout = L::linear, .stack = s});
    t.push_back({.name = layer + module + ".bias", .weight = b, .layout = L::vector, .stack = s});
  };
  const auto norm = [&](const std::string& module, W w, W b, Stack s) {
    t.push_back({.name = layer + module + ".weight", .weight = w, .layout = L::vector, .stack = s});
    t.push_back({.name = layer + module + ".bias", .weight = b, .layout = L::vector, .stack = s});
  };
  const auto attention = [&](const std::string& module, Stack s) {
    linear(module + ".q_proj", W::wq, W::bq, s);
    linear(module + ".k_proj", W::wk, W::bk, s);
    linear(module + ".v_proj", W::wv, W::bv, s);
    linear(module + ".out_proj", W::wo, W::bo, s);
  };
  attention("self_attn", stack);
  norm("self_attn_layer_norm", W::norm1_w, W::norm1_b, stack);
  if (stack == Stack::decoder) {
    attention("encoder_attn", Stack::cross);
    norm("encoder_attn_layer_norm", W::norm1_w, W::norm1_b, Stack::cross);
  }
  linear("fc1", W::mlp_in_w, W::mlp_in_b, stack);
  linear("fc2", W::mlp_out_w, W::mlp_out_b, stack);
  norm("final_layer_norm", W::norm2_w, W::norm2_b, stack);
}

}  // namespace

std::vector<TensorRule> bart_body() {
  std::vector<TensorRule> t = {{.name = "shared.weight", .weight = W::word_embeddings, .layout = L::embedding}};
  add_layers(t, "encoder", Stack::encoder);
  add_layers(t, "decoder", Stack::decoder);
  // A zero buffer in files saved from BartModel (bart-base) or before it was kept: optional.
  t.push_back({.name = "final_logits_bias", .weight = W::head_bias, .layout = L::row, .optional = true});
  return t;
}

std::vector<std::pair<std::string, std::string>> bart_duplicates() {
  return {{"encoder.embed_tokens.weight", "shared.weight"}, {"decoder.embed_tokens.weight", "shared.weight"}};
}

std::vector<IntField> bart_ints(int vocab_size) {
  return {
      {"vocab_size", &ModelConfig::vocab_size, vocab_size},
      {"d_model", &ModelConfig::hidden_size, 1024},
      {"encoder_layers", &ModelConfig::num_hidden_layers, 12},
      {"decoder_layers", &ModelConfig::num_decoder_layers, 12},
      {"encoder_attention_heads", &ModelConfig::num_attention_heads, 16},
      {"encoder_ffn_dim", &ModelConfig::intermediate_size, 4096},
      {"max_position_embeddings", &ModelConfig::max_position_embeddings, 1024},
  };
}

std::vector<std::pair<const char*, const char*>> bart_equal_sizes() {
  return {{"encoder_attention_heads", "decoder_attention_heads"}, {"encoder_ffn_dim", "decoder_ffn_dim"}};
}

const ArchitectureSpec& bart() {
  static const ArchitectureSpec spec{
      .model_type = "bart",
      .name = "BART",
      .block = Block::post_norm,
      .norm = Norm::layer_norm,
      .mlp = Mlp::dense,
      .positions = Positions::learned,
      .mask = Mask::bidirectional,
      .lm_head = LmHead::tied,
      .embedding_scale = EmbeddingScale::from_config,
      .stacks = Stacks::encoder_decoder,
      .config = {.ints = bart_ints(50265), .activation = "activation_function", .activation_fallback = "gelu", .eps = nullptr,
                 .eps_fallback = 1e-5, .position_offset = 2, .equal = bart_equal_sizes()},
      .prefixes = {"model."},
      .tensors = [] {
        std::vector<TensorRule> t = bart_body();
        for (const char* stack : {"encoder", "decoder"}) {
          const Stack s = stack[0] == 'e' ? Stack::encoder : Stack::decoder;
          const std::string name = stack;
          t.push_back({.name = name + ".embed_positions.weight", .weight = W::position_embeddings, .layout = L::embedding, .stack = s});
          t.push_back({.name = name + ".layernorm_embedding.weight", .weight = W::embeddings_norm_w, .layout = L::vector, .stack = s});
          t.push_back({.name = name + ".layernorm_embedding.bias", .weight = W::embeddings_norm_b, .layout = L::vector, .stack = s});
        }
        return t;
      }(),
      .duplicates = bart_duplicates(),
      .skipped = {"lm_head.weight"},  // the shared embeddings, tied
  };
  return spec;
}

}  // namespace multihead::architectures
