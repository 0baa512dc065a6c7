// A transformer model of any supported architecture (architecture.h): embeddings, then blocks of
// named steps (norm, attention, residual add, MLP) arranged as the architecture's Block says
// (post-norm for the BERT family, pre-norm and a final norm for GPT-2), and the LM head when the
// checkpoint has one. One forward pass serves every architecture.
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
#include "multihead/residual_parts.h"
#include "multihead/safetensors.h"
#include "multihead/weights.h"

namespace multihead {

// Upper bound on the memory of one generation's KV caches (Model::make_caches).
constexpr double kMaxCacheBytes = double(size_t{1} << 30);

// One block's weights: its attention layer, and the rest by kind (weights.h: norm1, norm2, the MLP's).
struct LayerWeights {
  MultiHeadAttention attention;
  WeightSet weights;
};

struct ModelWeights {
  WeightSet weights;                 // the whole model's: embeddings, their norm, the final norm, the LM head's own
  std::vector<LayerWeights> layers;  // num_hidden_layers
  bool has_lm_head = false;
};

// What Model::run returns: inputs[l] (n, d) is what layer l's attention reads (post-norm: the
// block's input; pre-norm: norm1 of it), and hidden (n, d) the final hidden states (post-norm: the
// last block's output; pre-norm: after the final norm).
struct ModelRun {
  std::vector<Matrix> inputs;
  Matrix hidden;
};

// Activation patching's change to a pass: in layer `layer`, head `head`'s output at every position
// becomes its columns of `output` (n, h·dh), another run's concatenation. Layer -1: none.
struct HeadPatch {
  int layer = -1, head = -1;
  const Matrix* output = nullptr;
};

// What a pass keeps for patching: the residual stream entering each layer (n, d), and each
// layer's head outputs side by side (n, h·dh), as its output projection reads them.
struct PassRecord {
  std::vector<Matrix> residuals, outputs;
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
  // The same pass over ids (n) at the positions after those `caches` hold (one KvCache per layer,
  // from make_caches, all of one length p): reads every cached key and value, stores the new ones
  // and, once every layer has succeeded, advances each cache's length by n. On an error the
  // caches are as they were. A prefill is ids of the prompt into empty caches; a step of
  // generation is one id. The hook sees each layer's trace: n queries over p + n keys, and only the
  // new rows of K and V. Positions past the caches' capacity or config().max_tokens() throw.
  ModelRun extend(const std::vector<int32_t>& ids, std::vector<KvCache>& caches, const LayerHook& on_layer = {},
                  const std::vector<Ablation>& ablation = {}) const;
  // Empty caches for `capacity` positions, one per layer: layers × capacity × kv·dh × 2 floats,
  // checked against kMaxCacheBytes before anything is allocated.
  std::vector<KvCache> make_caches(int capacity) const;
  // The bytes make_caches(capacity) takes.
  double cache_bytes(int capacity) const;
  // Layer `layer`'s full attention trace for `input` (n, d), as run() computed it from inputs[layer]
  // with the same `ablation`.
  AttentionTrace layer_trace(int layer, const Matrix& input, const std::vector<Ablation>& ablation = {}) const;
  // The LM head's scores (V) for one row of hidden states (d) as run() returns them. Throws
  // std::invalid_argument when the checkpoint has no LM head.
  std::vector<float> logits(const float* hidden_row) const;
  // logits(hidden_row)[token] − logits(hidden_row)[against] (against −1: the logit alone), reading
  // only those rows of the head; with `softcap` false, before Gemma's final soft cap.
  double logit_difference(const float* hidden_row, int32_t token, int32_t against, bool softcap = true) const;

  // Direct logit attribution, the first half: a pass over ids as run()'s, whose residual stream at
  // `position` is kept split into the parts that wrote it (residual_parts.h).
  ResidualParts explain(const std::vector<int32_t>& ids, int position, const std::vector<Ablation>& ablation = {}) const;
  // The second half: each part's share of logit_difference(hidden, token, against, false), read
  // through the LM head as the residual is, with its norm (and a masked LM's dense layer and
  // activation) frozen at the values the real hidden state gives: the activation as its ratio,
  // output over input. They sum to that difference.
  std::vector<double> part_logits(const ResidualParts& parts, int32_t token, int32_t against) const;
  // The logit lens: parts.residuals() through the final norm, if the model has one, each row
  // ready for logits() (a masked LM's head transforms its rows itself).
  Matrix lens(const ResidualParts& parts) const;

  // Activation patching's pieces. The residual stream entering layer 0 for ids (n, d).
  Matrix embeddings(const std::vector<int32_t>& ids) const;
  // Layers [first, layers) over x, the residual stream entering layer `first` (n, d), then the
  // final norm: the hidden states, computed as run() computes them from there, bit for bit.
  // With `patch`, one head's output is replaced (HeadPatch); `record`, if given, receives what
  // the pass computed (PassRecord), from layer `first` on. With `row` ≥ 0, only that row's hidden
  // state is wanted: the last layer projects keys and values from every row but computes the rest
  // (query, attention, MLP) for that row alone, and the result is (1, d); a record's last output
  // is then that row's, and a patch of the last layer may be that one row.
  Matrix run_from(int first, Matrix x, const HeadPatch& patch = {}, PassRecord* record = nullptr, int row = -1) const;

  bool has_lm_head() const { return weights_.has_lm_head; }
  const ModelConfig& config() const { return config_; }

 private:
  friend class ModelLoader;
  Model(const ModelConfig& config, ModelWeights weights);

  // The buffers a block's steps reuse, and what the run returns.
  struct Pass {
    ModelRun* run;  // run()'s and extend()'s, which keep each layer's input; or null: nobody reads them
    const LayerHook& on_layer;
    const std::vector<Ablation>& ablation;
    std::vector<KvCache>* caches;  // one per layer, or null: attention over the pass's own rows only
    ResidualParts* parts = nullptr;  // explain()'s, or null
    HeadPatch patch = {};
    PassRecord* record = nullptr;
    int row = -1;           // ≥ 0: the last layer computes this row alone (run_from's)
    Matrix normed;          // (n, d): a pre-norm block's normalised input
    Matrix branch;          // (n, d): the MLP's output
    AttentionTrace trace;   // one layer's, reused: at most one full trace is alive
  };

  // ids as tokens at positions first_position, …: in the vocabulary and within the model's length.
  void check_ids(const std::vector<int32_t>& ids, int first_position = 0) const;
  // The pass itself, shared by run() and extend().
  ModelRun pass(const std::vector<int32_t>& ids, int first_position, std::vector<KvCache>* caches, const LayerHook& on_layer,
                const std::vector<Ablation>& ablation) const;
  // Its layers from `first` on over x, then the final norm; x becomes the hidden states.
  void layers_from(size_t first, Matrix& x, Pass& p) const;
  // The head's input for one hidden row (1, d): the row itself, or a masked LM's dense layer,
  // activation and norm of it.
  Matrix head_input(const float* hidden_row) const;
  // The LM head's matrix (the embeddings when tied), its activation (a masked LM's), and a check of an id.
  const Buffer& unembedding() const;
  Activation head_activation() const;
  void check_token(const char* name, int32_t id) const;
  // explain()'s records, each doing nothing without p.parts.
  void observe_attention(size_t l, Pass& p, bool sandwich) const;
  void observe_norm(Pass& p, const Matrix& x, const WeightSet& w, Weight weight, Weight bias) const;
  // Layer l's part of a checked ablation (null for none).
  const Ablation* layer_ablation(const std::vector<Ablation>& ablation, size_t l) const;
  void check_ablation(const std::vector<Ablation>& ablation) const;

  // The blocks: a dozen lines of named steps each.
  void post_norm_block(size_t l, Matrix& x, Pass& p) const;
  void pre_norm_block(size_t l, Matrix& x, Pass& p, bool sandwich) const;
  void parallel_block(size_t l, Matrix& x, Pass& p) const;
  // The steps.
  Matrix embed(const std::vector<int32_t>& ids, int first_position) const;                     // (n, d)
  void norm(const Matrix& in, Matrix& out, const WeightSet& w, Weight weight, Weight bias, const std::string& where,
            const std::string& step) const;                                                    // (n, d) → (n, d)
  void attend(size_t l, const Matrix& input, Pass& p) const;                                   // (n, d) → p.trace
  // Whether layer l computes p.row alone, and x (n, d) cut to that row (1, d), after its attention.
  bool one_row(size_t l, const Pass& p) const;
  void keep_row(size_t l, Matrix& x, const Pass& p) const;
  void add(Matrix& x, const Matrix& branch, size_t l, const char* sum, const char* cause) const;  // x += branch
  void mlp(const LayerWeights& w, const Matrix& in, Matrix& out, const std::string& where) const;  // (n, d) → (n, d)

  // Step names for messages, from the architecture's tensor names ("attention.output.LayerNorm", "ln_1").
  struct StepNames {
    std::string embeddings_norm, norm1, norm2, mlp_in, mlp_gate, mlp_out, final_norm, attn_out_norm, mlp_out_norm;
  };

  ModelConfig config_;
  ModelWeights weights_;
  StepNames steps_;
};

}  // namespace multihead
