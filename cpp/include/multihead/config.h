// A model's configuration: the fields of a Hugging Face BERT config.json, their limits, and the
// parser that reads and checks them.
//
// Every error names the field and its value as the file wrote it, prefixed by "config.json: ".
// The limits are checked before anything is allocated: a config that passes describes a model
// whose float32 weights fit in kMaxModelBytes. This file does not look at the weights themselves
// (Model does, against these fields) and reads no architecture other than "bert".
#pragma once

#include <cstddef>
#include <string>

#include "multihead/attention.h"

namespace multihead {

struct ModelConfig {
  int vocab_size = 0;
  int hidden_size = 0;          // d
  int num_hidden_layers = 0;
  int num_attention_heads = 0;
  int intermediate_size = 0;    // MLP width, ff
  int max_position_embeddings = 0;
  int type_vocab_size = 0;
  float layer_norm_eps = 1e-12f;
};

// Limits checked before allocating: a model must fit in a 2 GB WASM heap with room to run.
constexpr int kMaxVocabulary = 1 << 20;
constexpr int kMaxLayers = 64;
constexpr int kMaxIntermediate = 4 * kMaxDModel;
constexpr int kMaxTypeVocabulary = 16;
// Float32 weights of the whole model. While loading, the heap also holds the file's bytes (about
// as large again in F32) and one tensor being converted, so 1 GiB is what a 2 GB heap can take.
// bert-base (110M parameters, 0.44 GB) fits; bert-large (335M, 1.34 GB) does not.
constexpr size_t kMaxModelBytes = size_t{1} << 30;

// Bytes of the model's float32 weights for `c` (embeddings, every block), in double so that any
// field values, however large, cannot overflow the computation.
double model_weight_bytes(const ModelConfig& c);

// Reads and checks a Hugging Face config.json of model_type "bert" (hidden_act must be "gelu").
// Throws std::invalid_argument for a malformed file or a wrong type, LimitError for a
// value outside its limits; every message starts with "config.json: ".
ModelConfig parse_bert_config(const std::string& json_text);

// The same checks on a ModelConfig built in code; messages start with `source` and ": ".
void check_model_config(const ModelConfig& c, const std::string& source = "ModelConfig");

}  // namespace multihead
