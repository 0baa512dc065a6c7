// RoBERTa (model_type "roberta"), as modeling_roberta.py names its modules: BERT's body, positions
// that start after the padding id (pad_token_id + 1), and RobertaForMaskedLM's head (lm_head),
// whose activation is erf GELU whatever hidden_act says.
#include "bert_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

const ArchitectureSpec& roberta() {
  static const ArchitectureSpec spec{
      .model_type = "roberta",
      .name = "RoBERTa",
      .block = Block::post_norm,
      .norm = Norm::layer_norm,
      .mlp = Mlp::dense,
      .positions = Positions::learned,
      .mask = Mask::bidirectional,
      .lm_head = LmHead::transformed,
      .head_activation = HeadActivation::gelu_erf,
      .config = {.ints = bert_ints(), .activation = "hidden_act", .activation_fallback = "gelu", .eps = "layer_norm_eps",
                 .eps_fallback = 1e-12, .padding = "pad_token_id", .required = bert_required()},
      .prefixes = {"roberta."},
      .aliases = legacy_layer_norm(),
      .tensors = [] {
        std::vector<TensorRule> t = bert_body();
        for (TensorRule& r : transform_head("lm_head.dense", "lm_head.layer_norm", "lm_head.bias")) t.push_back(r);
        return t;
      }(),
      .duplicates = {{"lm_head.decoder.bias", "lm_head.bias"}},
      .skipped = {"embeddings.position_ids", "embeddings.token_type_ids", "pooler.dense.weight", "pooler.dense.bias",
                  "lm_head.decoder.weight"},
      .no_head_message = "model.safetensors has no lm_head.* tensors",
  };
  return spec;
}

}  // namespace multihead::architectures
