// What BART and Marian share: their modules' names (transformers' modeling_bart.py, which
// modeling_marian.py copies) and config fields. Defined in bart.cpp; used by the two files.
#pragma once

#include <string>
#include <vector>

#include "multihead/architecture.h"

namespace multihead::architectures {

// The shared embeddings, each stack's post-norm layers (self_attn, self_attn_layer_norm, fc1, fc2,
// final_layer_norm), the decoder's encoder_attn and its norm, and final_logits_bias.
std::vector<TensorRule> bart_body();
// The shared embeddings' other names, and the tied head's copy: read only when shared is missing.
std::vector<std::pair<std::string, std::string>> bart_duplicates();
// BartConfig's and MarianConfig's integer fields, with their defaults.
std::vector<IntField> bart_ints(int vocab_size);
// The encoder's and the decoder's sizes that the engine has one of.
std::vector<std::pair<const char*, const char*>> bart_equal_sizes();

}  // namespace multihead::architectures
