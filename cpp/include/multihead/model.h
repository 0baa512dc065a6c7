// A transformer model of any supported architecture (architecture.h): embeddings, then blocks of
// one kind of layer (MultiHeadAttention, residual adds, LayerNorms, an MLP) placed as the
// architecture says (post-LN for the BERT family, pre-LN and a final ln_f for GPT-2), and the
// LM head when the checkpoint has one. One forward pass serves every architecture.
//
// A Model is built by ModelLoader (model_loader.h), which checks every tensor against the config
// before any weight byte. Model::run hands each layer's attention trace to a hook while it runs,
// holding one trace at a time; layer_trace recomputes one layer's trace later, from its input.
// Errors are std::invalid_argument / LimitError naming the value; OverflowError names the step.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "multihead/attention.h"
#include "multihead/config.h"
#include "multihead/matrix.h"
#include "multihead/safetensors.h"

namespace multihead {

// One block's weights besides attention's own. "norm1"/"norm2" are the block's two LayerNorms:
// after attention and after the MLP (post-LN), or before each of them (GPT-2's ln_1, ln_2).
struct LayerWeights {
  MultiHeadAttention attention;     // W_q, W_k, W_v, W_o (d, d), (in, out) packed; biases (d)
  Vector norm1_gamma, norm1_beta;   // (d)
  PackedMatrix w1;                  // (d, ff), (in, out)
  Vector b1;                        // (ff)
  PackedMatrix w2;                  // (ff, d), (in, out)
  Vector b2;                        // (d)
  Vector norm2_gamma, norm2_beta;   // (d)
};

// The LM head's own weights. Its decoder is the word embeddings (tied); GPT-2's head is only that.
struct LmHeadWeights {
  PackedMatrix dense;             // (d, d), (in, out); empty for GPT-2
  Vector dense_bias;              // (d); empty for GPT-2
  Vector norm_gamma, norm_beta;   // (d); empty for GPT-2
  Vector bias;                    // (V); empty for GPT-2
};

struct ModelWeights {
  Matrix word_embeddings;          // (V, d); also the LM head's decoder
  Matrix position_embeddings;      // (P, d)
  Matrix token_type_embeddings;    // (T, d); (0, d) without token types
  Vector embeddings_norm_gamma, embeddings_norm_beta;  // (d); empty for GPT-2
  std::vector<LayerWeights> layers;                    // num_hidden_layers
  Vector final_norm_gamma, final_norm_beta;            // (d): GPT-2's ln_f; empty otherwise
  bool has_lm_head = false;
  LmHeadWeights head;
};

// What Model::run returns: inputs[l] (n, d) is what layer l's attention reads (BERT family: the
// block's input; GPT-2: ln_1 of it), and hidden (n, d) the final hidden states (BERT family: the
// last block's output; GPT-2: after ln_f).
struct ModelRun {
  std::vector<Matrix> inputs;
  Matrix hidden;
};

// Called after each layer's attention with the layer (from 0) and its full trace. The trace is
// valid only during the call: its buffers are reused for the next layer.
using LayerHook = std::function<void(int layer, const AttentionTrace& trace)>;

class Model {
 public:
  // The convenience path: feeds the whole file's data through ModelLoader.
  Model(const ModelConfig& config, const SafetensorsFile& file);

  // ids (n) with 0 ≤ id < vocab_size and 1 ≤ n ≤ config().max_tokens(); token type 0 throughout.
  // `ablation` is empty, or one Ablation per head of every layer (layers × heads, layer-major):
  // each ablated head's output is replaced before its layer's output projection (attention.h).
  ModelRun run(const std::vector<int32_t>& ids, const LayerHook& on_layer = {},
               const std::vector<Ablation>& ablation = {}) const;
  // Layer `layer`'s full attention trace for `input` (n, d), as run() computed it from inputs[layer]
  // with the same `ablation`.
  AttentionTrace layer_trace(int layer, const Matrix& input, const std::vector<Ablation>& ablation = {}) const;
  // The LM head's scores (V) for one row of hidden states (d) as run() returns them. Throws
  // std::invalid_argument when the checkpoint has no LM head.
  std::vector<float> logits(const float* hidden_row) const;

  bool has_lm_head() const { return weights_.has_lm_head; }
  const ModelConfig& config() const { return config_; }

 private:
  friend class ModelLoader;
  Model(const ModelConfig& config, ModelWeights weights);

  void check_ids(const std::vector<int32_t>& ids) const;
  // Layer l's part of a checked ablation (null for none).
  const Ablation* layer_ablation(const std::vector<Ablation>& ablation, size_t l) const;
  void check_ablation(const std::vector<Ablation>& ablation) const;
  Matrix embed(const std::vector<int32_t>& ids) const;             // (n, d)
  void mlp(const LayerWeights& w, const Matrix& in, Matrix& out, const std::string& where) const;  // (n, d) → (n, d)

  // Step names for messages, from the architecture's tensor names ("attention.output.LayerNorm", "ln_1").
  struct StepNames {
    std::string embeddings_norm, norm1, norm2, mlp_in, mlp_out, final_norm;
  };

  ModelConfig config_;
  ModelWeights weights_;
  StepNames steps_;
};

}  // namespace multihead
