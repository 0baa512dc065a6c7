// A transformer model of any supported architecture (architecture.h): embeddings, then blocks of
// named steps (norm, attention, residual add, MLP) arranged as the architecture's Block says
// (post-norm for the BERT family, pre-norm and a final norm for GPT-2), and the LM head when the
// checkpoint has one. One forward pass serves every architecture. An encoder–decoder runs it twice:
// run() over the source in its encoder stack, then run_decoder() over the target in its decoder
// stack, whose blocks add a cross-attention over the encoder's output (weights.h's Stack).
//
// A Model is built by ModelLoader (model_loader.h), which checks every tensor against the config
// before any weight byte. Model::run hands each layer's attention trace to a hook while it runs,
// holding one trace at a time; layer_trace recomputes one layer's trace later, from its input.
// Errors are std::invalid_argument / LimitError naming the value; OverflowError names the step.
#pragma once

#include <array>
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

// One layer's weights: its attention, and the rest by kind (weights.h: norm1, norm2, the MLP's). A
// cross layer has its attention and the norm before or after it (norm1) alone.
struct LayerWeights {
  MultiHeadAttention attention;
  WeightSet weights;
};

// One stack's weights: what enters its first layer and leaves its last (positions, the
// embeddings' norm, the final norm, T5's relative bias), and its layers.
struct StackWeights {
  WeightSet weights;
  std::vector<LayerWeights> layers;
};

struct ModelWeights {
  WeightSet weights;  // the whole model's: the word embeddings, the LM head's own
  std::array<StackWeights, kStackCount> stacks;  // a one-stack model fills stacks[encoder] alone
  bool has_lm_head = false;
};

// What a pass returns: inputs[l] (n, d) is what layer l's self-attention reads (post-norm: the
// block's input; pre-norm: norm1 of it), and hidden (n, d) the final hidden states (post-norm: the
// last block's output; pre-norm: after the final norm). A decoder's pass also gives
// cross_inputs[l] (n, d), what cross layer l's queries are projected from (its keys and values
// come from the encoder's output).
struct ModelRun {
  std::vector<Matrix> inputs;
  std::vector<Matrix> cross_inputs;
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

// Called after each attention with its stack, its layer (from 0) and its full trace: in a decoder's
// pass, decoder layer l's self-attention, then cross layer l's. The trace is valid only during the
// call: its buffers are reused for the next attention.
using LayerHook = std::function<void(Stack stack, int layer, const AttentionTrace& trace)>;

class Model {
 public:
  // The convenience path: feeds the whole file's data through ModelLoader.
  Model(const ModelConfig& config, const SafetensorsFile& file);

  // ids (n) with 0 ≤ id < vocab_size and 1 ≤ n ≤ config().max_tokens(); token type 0 throughout.
  // `ablation` is empty, or one Ablation per head of every attention layer (attention_layers() ×
  // heads, layer-major: the encoder's layers, then an encoder–decoder's decoder layers, then its
  // cross layers): each ablated head's output is replaced before its layer's output projection
  // (attention.h). An encoder–decoder's run() is its encoder's: hidden is what the decoder reads.
  ModelRun run(const std::vector<int32_t>& ids, const LayerHook& on_layer = {},
               const std::vector<Ablation>& ablation = {}) const;
  // An encoder–decoder's decoder over the target ids (n, the start token first), its
  // cross-attention reading `memory` (n_source, d), the encoder's output (run(source).hidden).
  // hidden is ready for logits(). Throws for a one-stack model.
  ModelRun run_decoder(const std::vector<int32_t>& ids, const Matrix& memory, const LayerHook& on_layer = {},
                       const std::vector<Ablation>& ablation = {}) const;
  // The same pass over ids (n) at the positions after those `caches` hold (one KvCache per layer,
  // from make_caches, all of one length p): reads every cached key and value, stores the new ones
  // and, once every layer has succeeded, advances each cache's length by n. On an error the
  // caches are as they were. A prefill is ids of the prompt into empty caches; a step of
  // generation is one id. The hook sees each layer's trace: n queries over p + n keys, and only the
  // new rows of K and V. Positions past the caches' capacity or config().max_tokens() throw.
  // An encoder–decoder extends its decoder: `memory` holds every cross layer's keys and values of
  // the encoder's output (project_memory), which the new queries read.
  ModelRun extend(const std::vector<int32_t>& ids, std::vector<KvCache>& caches, const LayerHook& on_layer = {},
                  const std::vector<Ablation>& ablation = {}, std::vector<KvCache>* memory = nullptr) const;
  // Empty caches for `capacity` positions, one per layer (an encoder–decoder's decoder layers):
  // layers × capacity × kv·dh × 2 floats, checked against kMaxCacheBytes before anything is allocated.
  std::vector<KvCache> make_caches(int capacity) const;
  // Each cross layer's keys and values of `memory` (n_source, d), the encoder's output, projected
  // once for a whole writing. Throws for a one-stack model.
  std::vector<KvCache> project_memory(const Matrix& memory) const;
  // The bytes make_caches(capacity) takes.
  double cache_bytes(int capacity) const;
  // The full attention trace of layer `layer` of `stack` for `input` (n, d), as the pass computed
  // it from inputs[layer] (a cross layer's: cross_inputs[layer], over `memory`, the encoder's
  // output) with the same `ablation`.
  AttentionTrace layer_trace(Stack stack, int layer, const Matrix& input, const std::vector<Ablation>& ablation = {},
                             const Matrix* memory = nullptr) const;
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
  bool encoder_decoder() const { return config_.architecture->encoder_decoder(); }
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
    Stack stack = Stack::encoder;          // the stack whose layers run: the encoder's, or the decoder's
    const Matrix* memory = nullptr;        // a decoder's: the encoder's output, which cross-attention reads
    std::vector<KvCache>* memory_caches = nullptr;  // or its keys and values, projected once (extend)
    int first_position = 0;                // the position of the pass's first row
    std::vector<float> score_bias;         // T5's relative bias (h, n, n_keys), made once, read by every layer
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
  // The pass itself, shared by run(), run_decoder() and extend(): p's stack over ids.
  ModelRun pass(const std::vector<int32_t>& ids, Pass& p) const;
  // The layers of a pass's stack, and layer l of it.
  const std::vector<LayerWeights>& layers(const Pass& p) const { return weights_.stacks[size_t(p.stack)].layers; }
  // The stack a writing extends, whose layers have KV caches: an encoder–decoder's decoder.
  Stack written_stack() const { return encoder_decoder() ? Stack::decoder : Stack::encoder; }
  // A decoder's pass: throws unless the model is an encoder–decoder.
  void check_decoder(const char* what) const;
  // What one-stack models alone have so far (`what`: "activation patching"): throws for an encoder–decoder.
  void check_one_stack(const char* what) const;
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
  // Layer l of `stack`'s part of a checked ablation (null for none).
  const Ablation* layer_ablation(const std::vector<Ablation>& ablation, Stack stack, size_t l) const;
  void check_ablation(const std::vector<Ablation>& ablation) const;

  // The blocks: a dozen lines of named steps each.
  void post_norm_block(size_t l, Matrix& x, Pass& p) const;
  void pre_norm_block(size_t l, Matrix& x, Pass& p, bool sandwich) const;
  void parallel_block(size_t l, Matrix& x, Pass& p) const;
  // The steps.
  Matrix embed(const std::vector<int32_t>& ids, int first_position, Stack stack = Stack::encoder) const;  // (n, d)
  void norm(const Matrix& in, Matrix& out, const WeightSet& w, Weight weight, Weight bias, const std::string& where,
            const std::string& step) const;                                                    // (n, d) → (n, d)
  void attend(size_t l, const Matrix& input, Pass& p) const;                                   // (n, d) → p.trace
  // A decoder block's cross-attention step: x (n, d) += cross layer l's attention over p.memory,
  // its norm placed as the block's others (post-norm: after the sum; pre-norm: before the attention).
  void cross_attend(size_t l, Matrix& x, Pass& p) const;
  // The relative bias of a pass's stack, made at its first layer (Positions::relative), or null.
  const float* relative_bias(size_t n_queries, size_t n_keys, Pass& p) const;
  // Whether layer l computes p.row alone, and x (n, d) cut to that row (1, d), after its attention.
  bool one_row(size_t l, const Pass& p) const;
  void keep_row(size_t l, Matrix& x, const Pass& p) const;
  void add(Matrix& x, const Matrix& branch, const std::string& where, const char* sum, const char* cause) const;  // x += branch
  void mlp(const LayerWeights& w, const Matrix& in, Matrix& out, const std::string& where) const;  // (n, d) → (n, d)
  // Where layer l of a pass runs, for messages: "layer 3", "decoder layer 3".
  std::string where(size_t l, const Pass& p) const;

  // Step names for messages, from the architecture's tensor names ("attention.output.LayerNorm", "ln_1").
  struct StepNames {
    std::string embeddings_norm, norm1, norm2, mlp_in, mlp_gate, mlp_out, final_norm, attn_out_norm, mlp_out_norm, cross_norm;
  };

  ModelConfig config_;
  ModelWeights weights_;
  StepNames steps_;
};

}  // namespace multihead
