// What BERT, RoBERTa and DistilBERT share: their config fields' defaults and refusals, and their
// tables' common parts. Defined in bert.cpp; used by the three architecture files.
#pragma once

#include <string>
#include <vector>

#include "multihead/architecture.h"

namespace multihead::architectures {

// BertModel's and RobertaModel's body: the same modules under the same names.
std::vector<TensorRule> bert_body();
// A masked-LM head: a transform (dense, activation, norm) and an output bias; its decoder is the
// word embeddings, tied.
std::vector<TensorRule> transform_head(const std::string& dense, const std::string& norm, const std::string& bias);
// TF-converted checkpoints name LayerNorm's weight and bias gamma and beta.
std::vector<std::pair<std::string, std::string>> legacy_layer_norm();
// BertConfig's and RobertaConfig's integer fields, and the options the pass implements one way.
// (Functions, not globals: a spec may be built during another file's static initialisation.)
std::vector<IntField> bert_ints();
std::vector<RequiredValue> bert_required();

}  // namespace multihead::architectures
