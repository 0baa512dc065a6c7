// A BERT-style encoder (the architecture of Hugging Face's BertModel) built from
// MultiHeadAttention layers: token + position + token-type embeddings, an embedding LayerNorm,
// then post-LN blocks of attention → add & LayerNorm → MLP (erf GELU) → add & LayerNorm.
// It returns every layer's attention trace. No task heads (MLM, pooler): this is for looking.
//
// Loading validates the config (config.h), then every tensor's name and shape against it, before
// allocating the model; errors are std::invalid_argument / LimitError naming the field or
// tensor, prefixed by the file they come from ("config.json: ", "model.safetensors: ").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "multihead/attention.h"
#include "multihead/config.h"
#include "multihead/matrix.h"
#include "multihead/safetensors.h"

namespace multihead {

struct ModelTrace {
  // (n, d) each, one per block: block l's input. inputs[0] is the embeddings after the embedding
  // LayerNorm; inputs[l] for l > 0 is block l-1's output.
  std::vector<Matrix> inputs;
  std::vector<AttentionTrace> layers; // one per block
  Matrix hidden;                      // (n, d): the last block's output
};

class Model {
 public:
  // Tensor names are BertModel's, with or without a "bert." prefix (as in BertForMaskedLM files).
  Model(const ModelConfig& config, const SafetensorsFile& weights);

  // ids (n) with 0 ≤ id < vocab_size and 1 ≤ n ≤ max_position_embeddings; token type 0 throughout.
  ModelTrace run(const std::vector<int32_t>& ids) const;
  const ModelConfig& config() const { return config_; }

 private:
  struct Block {
    MultiHeadAttention attention;
    Vector ln1_gamma, ln1_beta;  // (d)
    PackedMatrix w1;             // (d, ff), (in, out)
    Vector b1;                   // (ff)
    PackedMatrix w2;             // (ff, d), (in, out)
    Vector b2;                   // (d)
    Vector ln2_gamma, ln2_beta;  // (d)
  };

  ModelConfig config_;
  Matrix word_embeddings_;      // (vocab, d)
  Matrix position_embeddings_;  // (max_positions, d)
  Vector token_type0_;          // (d): the row for token type 0
  Vector ln_gamma_, ln_beta_;   // (d)
  std::vector<Block> blocks_;
};

}  // namespace multihead
