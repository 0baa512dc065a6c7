// The one table of the engine's weights (weights.h): every kind, its scope, shape and storage.
#include "multihead/weights.h"

#include <stdexcept>

#include "multihead/config.h"

namespace multihead {
namespace {

using D = Dim;
using S = Storage;
using W = Weight;

constexpr WeightKind kWeightKinds[] = {
    {W::word_embeddings, "word_embeddings", Scope::model, D::vocab, D::model, S::plain},  // also a tied LM head's decoder
    {W::position_embeddings, "position_embeddings", Scope::stack, D::positions, D::model, S::plain},
    {W::token_type_embeddings, "token_type_embeddings", Scope::stack, D::types, D::model, S::plain},
    {W::embeddings_norm_w, "the embeddings' norm weight", Scope::stack, D::one, D::model, S::plain},
    {W::embeddings_norm_b, "the embeddings' norm bias", Scope::stack, D::one, D::model, S::plain},
    {W::final_norm_w, "the final norm weight", Scope::stack, D::one, D::model, S::plain},
    {W::final_norm_b, "the final norm bias", Scope::stack, D::one, D::model, S::plain},
    {W::relative_bias, "the relative position bias", Scope::stack, D::buckets, D::heads, S::plain},
    {W::head_dense_w, "the LM head's dense weight", Scope::model, D::model, D::model, S::packed},
    {W::head_dense_b, "the LM head's dense bias", Scope::model, D::one, D::model, S::plain},
    {W::head_norm_w, "the LM head's norm weight", Scope::model, D::one, D::model, S::plain},
    {W::head_norm_b, "the LM head's norm bias", Scope::model, D::one, D::model, S::plain},
    {W::head_bias, "the LM head's bias", Scope::model, D::one, D::vocab, S::plain},
    {W::lm_head, "the LM head's decoder", Scope::model, D::vocab, D::model, S::plain},
    {W::wq, "wq", Scope::layer, D::model, D::q_width, S::packed},
    {W::bq, "bq", Scope::layer, D::one, D::q_width, S::plain},
    {W::wk, "wk", Scope::layer, D::model, D::kv_width, S::packed},
    {W::bk, "bk", Scope::layer, D::one, D::kv_width, S::plain},
    {W::wv, "wv", Scope::layer, D::model, D::kv_width, S::packed},
    {W::bv, "bv", Scope::layer, D::one, D::kv_width, S::plain},
    {W::wo, "wo", Scope::layer, D::q_width, D::model, S::packed},
    {W::bo, "bo", Scope::layer, D::one, D::model, S::plain},
    {W::norm1_w, "norm1 weight", Scope::layer, D::one, D::model, S::plain},
    {W::norm1_b, "norm1 bias", Scope::layer, D::one, D::model, S::plain},
    {W::norm2_w, "norm2 weight", Scope::layer, D::one, D::model, S::plain},
    {W::norm2_b, "norm2 bias", Scope::layer, D::one, D::model, S::plain},
    {W::mlp_in_w, "the MLP's input weight", Scope::layer, D::model, D::mlp, S::packed},
    {W::mlp_in_b, "the MLP's input bias", Scope::layer, D::one, D::mlp, S::plain},
    {W::mlp_out_w, "the MLP's output weight", Scope::layer, D::mlp, D::model, S::packed},
    {W::mlp_out_b, "the MLP's output bias", Scope::layer, D::one, D::model, S::plain},
    {W::mlp_gate_w, "the MLP's gate weight", Scope::layer, D::model, D::mlp, S::packed},
    {W::q_norm_w, "the queries' norm weight", Scope::layer, D::one, D::head, S::plain},
    {W::k_norm_w, "the keys' norm weight", Scope::layer, D::one, D::head, S::plain},
    {W::attn_out_norm_w, "the attention output's norm weight", Scope::layer, D::one, D::model, S::plain},
    {W::mlp_out_norm_w, "the MLP output's norm weight", Scope::layer, D::one, D::model, S::plain},
};
static_assert(sizeof kWeightKinds / sizeof kWeightKinds[0] == kWeightCount, "every weight has one row");

}  // namespace

const WeightKind& weight_kind(Weight w) {
  const WeightKind& k = kWeightKinds[size_t(w)];
  if (k.weight != w) throw std::logic_error("kWeightKinds is not in the order of Weight");
  return k;
}

size_t dim_size(const ModelConfig& c, Dim d) {
  switch (d) {
    case Dim::one: return 1;
    case Dim::vocab: return size_t(c.vocab_size);
    case Dim::model: return size_t(c.hidden_size);
    case Dim::mlp: return size_t(c.intermediate_size);
    case Dim::positions: return size_t(c.max_position_embeddings);
    case Dim::types: return size_t(c.type_vocab_size);
    case Dim::q_width: return size_t(c.num_attention_heads) * size_t(c.head_dim);
    case Dim::kv_width: return size_t(c.num_key_value_heads) * size_t(c.head_dim);
    case Dim::head: return size_t(c.head_dim);
    case Dim::heads: return size_t(c.num_attention_heads);
    case Dim::buckets: return size_t(c.relative_buckets);
  }
  return 0;
}

const char* stack_name(Stack s) {
  switch (s) {
    case Stack::encoder: return "encoder";
    case Stack::decoder: return "decoder";
    case Stack::cross: return "cross";
  }
  return "";
}

bool is_norm_weight(Weight w) {
  switch (w) {
    case W::embeddings_norm_w:
    case W::final_norm_w:
    case W::head_norm_w:
    case W::norm1_w:
    case W::norm2_w:
    case W::q_norm_w:
    case W::k_norm_w:
    case W::attn_out_norm_w:
    case W::mlp_out_norm_w: return true;
    default: return false;
  }
}

}  // namespace multihead
