// The four architectures as data: one table each from Hugging Face tensor names to the engine's
// weights. Names follow transformers' modeling_bert.py, modeling_distilbert.py,
// modeling_roberta.py and modeling_gpt2.py, as their state dicts (and so model.safetensors) spell
// them. Nothing here reads a file or runs a layer.
#include "multihead/architecture.h"

#include <stdexcept>

namespace multihead {
namespace {

using D = Dim;
using L = Layout;
using W = Weight;

// BERT's and RoBERTa's body: the same modules under the same names.
std::vector<TensorRule> bert_body() {
  return {
      {"embeddings.word_embeddings.weight", W::word_embeddings, L::embedding, D::vocab, D::model},
      {"embeddings.position_embeddings.weight", W::position_embeddings, L::embedding, D::positions, D::model},
      {"embeddings.token_type_embeddings.weight", W::token_type_embeddings, L::embedding, D::types, D::model},
      {"embeddings.LayerNorm.weight", W::embeddings_norm_gamma, L::vector, D::model, D::model},
      {"embeddings.LayerNorm.bias", W::embeddings_norm_beta, L::vector, D::model, D::model},
      {"encoder.layer.{}.attention.self.query.weight", W::wq, L::linear, D::model, D::model},
      {"encoder.layer.{}.attention.self.query.bias", W::bq, L::vector, D::model, D::model},
      {"encoder.layer.{}.attention.self.key.weight", W::wk, L::linear, D::model, D::model},
      {"encoder.layer.{}.attention.self.key.bias", W::bk, L::vector, D::model, D::model},
      {"encoder.layer.{}.attention.self.value.weight", W::wv, L::linear, D::model, D::model},
      {"encoder.layer.{}.attention.self.value.bias", W::bv, L::vector, D::model, D::model},
      {"encoder.layer.{}.attention.output.dense.weight", W::wo, L::linear, D::model, D::model},
      {"encoder.layer.{}.attention.output.dense.bias", W::bo, L::vector, D::model, D::model},
      {"encoder.layer.{}.attention.output.LayerNorm.weight", W::norm1_gamma, L::vector, D::model, D::model},
      {"encoder.layer.{}.attention.output.LayerNorm.bias", W::norm1_beta, L::vector, D::model, D::model},
      {"encoder.layer.{}.intermediate.dense.weight", W::w1, L::linear, D::model, D::mlp},
      {"encoder.layer.{}.intermediate.dense.bias", W::b1, L::vector, D::mlp, D::mlp},
      {"encoder.layer.{}.output.dense.weight", W::w2, L::linear, D::mlp, D::model},
      {"encoder.layer.{}.output.dense.bias", W::b2, L::vector, D::model, D::model},
      {"encoder.layer.{}.output.LayerNorm.weight", W::norm2_gamma, L::vector, D::model, D::model},
      {"encoder.layer.{}.output.LayerNorm.bias", W::norm2_beta, L::vector, D::model, D::model},
  };
}

// A transform (dense, activation, LayerNorm) and an output bias; the decoder is the word embeddings.
std::vector<TensorRule> transform_head(const std::string& dense, const std::string& norm, const std::string& bias) {
  return {
      {dense + ".weight", W::head_dense_w, L::linear, D::model, D::model},
      {dense + ".bias", W::head_dense_b, L::vector, D::model, D::model},
      {norm + ".weight", W::head_norm_gamma, L::vector, D::model, D::model},
      {norm + ".bias", W::head_norm_beta, L::vector, D::model, D::model},
      {bias, W::head_bias, L::vector, D::vocab, D::vocab},
  };
}

const std::vector<std::pair<std::string, std::string>> kLegacyLayerNorm = {{"LayerNorm.gamma", "LayerNorm.weight"},
                                                                          {"LayerNorm.beta", "LayerNorm.bias"}};

ArchitectureSpec bert() {
  return {Architecture::bert, false, false, true, true, false,
          {"bert."},
          kLegacyLayerNorm,
          bert_body(),
          transform_head("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias"),
          {{"cls.predictions.decoder.bias", "cls.predictions.bias"}},
          {"embeddings.position_ids", "embeddings.token_type_ids", "pooler.dense.weight", "pooler.dense.bias",
           "cls.seq_relationship.weight", "cls.seq_relationship.bias", "cls.predictions.decoder.weight"},
          "model.safetensors has no cls.predictions.* tensors"};
}

ArchitectureSpec roberta() {
  return {Architecture::roberta, false, false, true, true, true,
          {"roberta."},
          kLegacyLayerNorm,
          bert_body(),
          transform_head("lm_head.dense", "lm_head.layer_norm", "lm_head.bias"),
          {{"lm_head.decoder.bias", "lm_head.bias"}},
          {"embeddings.position_ids", "embeddings.token_type_ids", "pooler.dense.weight", "pooler.dense.bias",
           "lm_head.decoder.weight"},
          "model.safetensors has no lm_head.* tensors"};
}

ArchitectureSpec distilbert() {
  const std::string l = "transformer.layer.{}.";
  return {Architecture::distilbert, false, false, false, true, false,
          {"distilbert."},
          {},
          {
              {"embeddings.word_embeddings.weight", W::word_embeddings, L::embedding, D::vocab, D::model},
              {"embeddings.position_embeddings.weight", W::position_embeddings, L::embedding, D::positions, D::model},
              {"embeddings.LayerNorm.weight", W::embeddings_norm_gamma, L::vector, D::model, D::model},
              {"embeddings.LayerNorm.bias", W::embeddings_norm_beta, L::vector, D::model, D::model},
              {l + "attention.q_lin.weight", W::wq, L::linear, D::model, D::model},
              {l + "attention.q_lin.bias", W::bq, L::vector, D::model, D::model},
              {l + "attention.k_lin.weight", W::wk, L::linear, D::model, D::model},
              {l + "attention.k_lin.bias", W::bk, L::vector, D::model, D::model},
              {l + "attention.v_lin.weight", W::wv, L::linear, D::model, D::model},
              {l + "attention.v_lin.bias", W::bv, L::vector, D::model, D::model},
              {l + "attention.out_lin.weight", W::wo, L::linear, D::model, D::model},
              {l + "attention.out_lin.bias", W::bo, L::vector, D::model, D::model},
              {l + "sa_layer_norm.weight", W::norm1_gamma, L::vector, D::model, D::model},
              {l + "sa_layer_norm.bias", W::norm1_beta, L::vector, D::model, D::model},
              {l + "ffn.lin1.weight", W::w1, L::linear, D::model, D::mlp},
              {l + "ffn.lin1.bias", W::b1, L::vector, D::mlp, D::mlp},
              {l + "ffn.lin2.weight", W::w2, L::linear, D::mlp, D::model},
              {l + "ffn.lin2.bias", W::b2, L::vector, D::model, D::model},
              {l + "output_layer_norm.weight", W::norm2_gamma, L::vector, D::model, D::model},
              {l + "output_layer_norm.bias", W::norm2_beta, L::vector, D::model, D::model},
          },
          transform_head("vocab_transform", "vocab_layer_norm", "vocab_projector.bias"),
          {},
          {"embeddings.position_ids", "vocab_projector.weight"},
          "model.safetensors has no vocab_transform.*, vocab_layer_norm.* or vocab_projector.* tensors"};
}

ArchitectureSpec gpt2() {
  return {Architecture::gpt2, true, true, false, false, false,
          {"transformer."},
          {},
          {
              {"wte.weight", W::word_embeddings, L::embedding, D::vocab, D::model},
              {"wpe.weight", W::position_embeddings, L::embedding, D::positions, D::model},
              {"h.{}.ln_1.weight", W::norm1_gamma, L::vector, D::model, D::model},
              {"h.{}.ln_1.bias", W::norm1_beta, L::vector, D::model, D::model},
              {"h.{}.attn.c_attn.weight", W::wqkv, L::fused_qkv, D::model, D::model},
              {"h.{}.attn.c_attn.bias", W::bqkv, L::fused_bias, D::model, D::model},
              {"h.{}.attn.c_proj.weight", W::wo, L::conv1d, D::model, D::model},
              {"h.{}.attn.c_proj.bias", W::bo, L::vector, D::model, D::model},
              {"h.{}.ln_2.weight", W::norm2_gamma, L::vector, D::model, D::model},
              {"h.{}.ln_2.bias", W::norm2_beta, L::vector, D::model, D::model},
              {"h.{}.mlp.c_fc.weight", W::w1, L::conv1d, D::model, D::mlp},
              {"h.{}.mlp.c_fc.bias", W::b1, L::vector, D::mlp, D::mlp},
              {"h.{}.mlp.c_proj.weight", W::w2, L::conv1d, D::mlp, D::model},
              {"h.{}.mlp.c_proj.bias", W::b2, L::vector, D::model, D::model},
              {"ln_f.weight", W::final_norm_gamma, L::vector, D::model, D::model},
              {"ln_f.bias", W::final_norm_beta, L::vector, D::model, D::model},
          },
          {},  // the LM head is wte itself, tied: nothing to read, and every GPT-2 file has it
          {},
          {"h.{}.attn.bias", "h.{}.attn.masked_bias", "lm_head.weight"},
          ""};
}

}  // namespace

const char* architecture_name(Architecture a) {
  switch (a) {
    case Architecture::bert: return "bert";
    case Architecture::distilbert: return "distilbert";
    case Architecture::roberta: return "roberta";
    case Architecture::gpt2: return "gpt2";
  }
  throw std::invalid_argument("unknown architecture");
}

const ArchitectureSpec& architecture_spec(Architecture a) {
  static const ArchitectureSpec specs[] = {bert(), distilbert(), roberta(), gpt2()};
  for (const ArchitectureSpec& s : specs) {
    if (s.architecture == a) return s;
  }
  throw std::invalid_argument("unknown architecture");
}

}  // namespace multihead
