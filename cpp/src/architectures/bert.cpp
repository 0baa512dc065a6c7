// BERT (model_type "bert"), as transformers' modeling_bert.py names its modules: post-norm blocks,
// learned positions and token types, a LayerNorm after the embeddings, and BertForMaskedLM's
// head (cls.predictions). Also the parts RoBERTa and DistilBERT share (bert_family.h).
#include "bert_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

using L = Layout;
using W = Weight;

std::vector<TensorRule> bert_body() {
  const std::string layer = "encoder.layer.{}.";
  return {
      {"embeddings.word_embeddings.weight", W::word_embeddings, L::embedding},
      {"embeddings.position_embeddings.weight", W::position_embeddings, L::embedding},
      {"embeddings.token_type_embeddings.weight", W::token_type_embeddings, L::embedding},
      {"embeddings.LayerNorm.weight", W::embeddings_norm_w, L::vector},
      {"embeddings.LayerNorm.bias", W::embeddings_norm_b, L::vector},
      {layer + "attention.self.query.weight", W::wq, L::linear},
      {layer + "attention.self.query.bias", W::bq, L::vector},
      {layer + "attention.self.key.weight", W::wk, L::linear},
      {layer + "attention.self.key.bias", W::bk, L::vector},
      {layer + "attention.self.value.weight", W::wv, L::linear},
      {layer + "attention.self.value.bias", W::bv, L::vector},
      {layer + "attention.output.dense.weight", W::wo, L::linear},
      {layer + "attention.output.dense.bias", W::bo, L::vector},
      {layer + "attention.output.LayerNorm.weight", W::norm1_w, L::vector},
      {layer + "attention.output.LayerNorm.bias", W::norm1_b, L::vector},
      {layer + "intermediate.dense.weight", W::mlp_in_w, L::linear},
      {layer + "intermediate.dense.bias", W::mlp_in_b, L::vector},
      {layer + "output.dense.weight", W::mlp_out_w, L::linear},
      {layer + "output.dense.bias", W::mlp_out_b, L::vector},
      {layer + "output.LayerNorm.weight", W::norm2_w, L::vector},
      {layer + "output.LayerNorm.bias", W::norm2_b, L::vector},
  };
}

std::vector<TensorRule> transform_head(const std::string& dense, const std::string& norm, const std::string& bias) {
  return {
      {dense + ".weight", W::head_dense_w, L::linear, Part::head},
      {dense + ".bias", W::head_dense_b, L::vector, Part::head},
      {norm + ".weight", W::head_norm_w, L::vector, Part::head},
      {norm + ".bias", W::head_norm_b, L::vector, Part::head},
      {bias, W::head_bias, L::vector, Part::head},
  };
}

std::vector<std::pair<std::string, std::string>> legacy_layer_norm() {
  return {{"LayerNorm.gamma", "LayerNorm.weight"}, {"LayerNorm.beta", "LayerNorm.bias"}};
}

std::vector<IntField> bert_ints() {
  return {
      {"vocab_size", &ModelConfig::vocab_size, kRequired},
      {"hidden_size", &ModelConfig::hidden_size, kRequired},
      {"num_hidden_layers", &ModelConfig::num_hidden_layers, kRequired},
      {"num_attention_heads", &ModelConfig::num_attention_heads, kRequired},
      {"intermediate_size", &ModelConfig::intermediate_size, kRequired},
      {"max_position_embeddings", &ModelConfig::max_position_embeddings, kRequired},
      {"type_vocab_size", &ModelConfig::type_vocab_size, 2},  // BertConfig's and RobertaConfig's default
  };
}

std::vector<RequiredValue> bert_required() {
  return {{"position_embedding_type", "\"absolute\""}, {"is_decoder", "false"}, {"add_cross_attention", "false"}};
}

const ArchitectureSpec& bert() {
  static const ArchitectureSpec spec{
      .model_type = "bert",
      .name = "BERT",
      .block = Block::post_norm,
      .norm = Norm::layer_norm,
      .mlp = Mlp::dense,
      .positions = Positions::learned,
      .mask = Mask::bidirectional,
      .lm_head = LmHead::transformed,
      .config = {.ints = bert_ints(), .activation = "hidden_act", .activation_fallback = "gelu", .eps = "layer_norm_eps",
                 .eps_fallback = 1e-12, .required = bert_required()},
      .prefixes = {"bert."},
      .aliases = legacy_layer_norm(),
      .tensors = [] {
        std::vector<TensorRule> t = bert_body();
        for (TensorRule& r : transform_head("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias")) {
          t.push_back(r);
        }
        return t;
      }(),
      .duplicates = {{"cls.predictions.decoder.bias", "cls.predictions.bias"}},
      .skipped = {"embeddings.position_ids", "embeddings.token_type_ids", "pooler.dense.weight", "pooler.dense.bias",
                  "cls.seq_relationship.weight", "cls.seq_relationship.bias", "cls.predictions.decoder.weight"},
      .no_head_message = "model.safetensors has no cls.predictions.* tensors",
  };
  return spec;
}

}  // namespace multihead::architectures
