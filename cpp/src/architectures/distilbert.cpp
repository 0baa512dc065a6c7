// DistilBERT (model_type "distilbert"), as modeling_distilbert.py names its modules: BERT's
// post-norm blocks under other names, no token types, LayerNorm eps fixed at 1e-12, and
// DistilBertForMaskedLM's head (vocab_transform, vocab_layer_norm, vocab_projector).
#include "bert_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

using L = Layout;
using W = Weight;

const ArchitectureSpec& distilbert() {
  const std::string layer = "transformer.layer.{}.";
  static const ArchitectureSpec spec{
      .model_type = "distilbert",
      .name = "DistilBERT",
      .block = Block::post_norm,
      .norm = Norm::layer_norm,
      .mlp = Mlp::dense,
      .positions = Positions::learned,
      .mask = Mask::bidirectional,
      .lm_head = LmHead::transformed,
      .config = {.ints = {{"vocab_size", &ModelConfig::vocab_size, kRequired},
                          {"dim", &ModelConfig::hidden_size, kRequired},
                          {"n_layers", &ModelConfig::num_hidden_layers, kRequired},
                          {"n_heads", &ModelConfig::num_attention_heads, kRequired},
                          {"hidden_dim", &ModelConfig::intermediate_size, kRequired},
                          {"max_position_embeddings", &ModelConfig::max_position_embeddings, kRequired}},
                 .activation = "activation",
                 .activation_fallback = "gelu",
                 .eps = nullptr,  // DistilBERT's LayerNorms have eps 1e-12, not configurable
                 .eps_fallback = 1e-12,
                 .required = {{"sinusoidal_pos_embds", "false"}}},
      .prefixes = {"distilbert."},
      .tensors =
          {
              {"embeddings.word_embeddings.weight", W::word_embeddings, L::embedding},
              {"embeddings.position_embeddings.weight", W::position_embeddings, L::embedding},
              {"embeddings.LayerNorm.weight", W::embeddings_norm_w, L::vector},
              {"embeddings.LayerNorm.bias", W::embeddings_norm_b, L::vector},
              {layer + "attention.q_lin.weight", W::wq, L::linear},
              {layer + "attention.q_lin.bias", W::bq, L::vector},
              {layer + "attention.k_lin.weight", W::wk, L::linear},
              {layer + "attention.k_lin.bias", W::bk, L::vector},
              {layer + "attention.v_lin.weight", W::wv, L::linear},
              {layer + "attention.v_lin.bias", W::bv, L::vector},
              {layer + "attention.out_lin.weight", W::wo, L::linear},
              {layer + "attention.out_lin.bias", W::bo, L::vector},
              {layer + "sa_layer_norm.weight", W::norm1_w, L::vector},
              {layer + "sa_layer_norm.bias", W::norm1_b, L::vector},
              {layer + "ffn.lin1.weight", W::mlp_in_w, L::linear},
              {layer + "ffn.lin1.bias", W::mlp_in_b, L::vector},
              {layer + "ffn.lin2.weight", W::mlp_out_w, L::linear},
              {layer + "ffn.lin2.bias", W::mlp_out_b, L::vector},
              {layer + "output_layer_norm.weight", W::norm2_w, L::vector},
              {layer + "output_layer_norm.bias", W::norm2_b, L::vector},
              {"vocab_transform.weight", W::head_dense_w, L::linear, Part::head},
              {"vocab_transform.bias", W::head_dense_b, L::vector, Part::head},
              {"vocab_layer_norm.weight", W::head_norm_w, L::vector, Part::head},
              {"vocab_layer_norm.bias", W::head_norm_b, L::vector, Part::head},
              {"vocab_projector.bias", W::head_bias, L::vector, Part::head},
          },
      .skipped = {"embeddings.position_ids", "vocab_projector.weight"},
      .no_head_message = "model.safetensors has no vocab_transform.*, vocab_layer_norm.* or vocab_projector.* tensors",
  };
  return spec;
}

}  // namespace multihead::architectures
