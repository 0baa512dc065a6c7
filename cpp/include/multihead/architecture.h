// What distinguishes the model architectures the engine runs (BERT, DistilBERT, RoBERTa, GPT-2):
// a small description of each, as data. Model runs one forward pass configured by it, and
// ModelLoader reads every checkpoint through its one table of tensor names.
//
// The description says where LayerNorm sits, whether attention is causal, whether there are
// token types and an embedding LayerNorm, which activation the LM head uses, and the table from
// Hugging Face tensor names to engine weights: their layouts, legacy aliases, accepted prefixes,
// buffers skipped by name, tied weights and the LM-head tensors. It holds no code of the forward
// pass or of the loader, and nothing read from a config.json (config.h holds that).
#pragma once

#include <string>
#include <vector>

namespace multihead {

enum class Architecture { bert, distilbert, roberta, gpt2 };

// The name as config.json's model_type spells it: "bert", "distilbert", "roberta", "gpt2".
const char* architecture_name(Architecture a);

// The MLP's activation: exact erf GELU (BERT's "gelu") or the tanh approximation (GPT-2's "gelu_new").
enum class Activation { gelu_erf, gelu_tanh };

// A size a tensor's shape is made of, taken from the config.
enum class Dim {
  vocab,      // V: vocab_size
  model,      // d: hidden_size
  mlp,        // ff: intermediate_size
  positions,  // P: rows of the position table (max_position_embeddings, GPT-2's n_positions)
  types,      // T: type_vocab_size
};

// How a tensor is stored in the file, and so how it reaches the engine's (in, out) layout.
enum class Layout {
  linear,       // nn.Linear weight, shape (out, in): transposed and packed through the staging buffer
  conv1d,       // GPT-2's Conv1D weight, shape (in, out): packed through the staging buffer
  fused_qkv,    // Conv1D (in, 3·out): Q | K | V column blocks, packed into W_q, W_k, W_v
  fused_bias,   // (3·out): b_q | b_k | b_v, written straight into the three biases
  vector,       // (in): written straight into its buffer
  embedding,    // (in rows, d): written straight into its table
};

// The engine's weights a tensor can fill. Per-layer weights are numbered by the layer in the name.
enum class Weight {
  word_embeddings, position_embeddings, token_type_embeddings, embeddings_norm_gamma, embeddings_norm_beta,
  // each layer
  wq, bq, wk, bk, wv, bv, wqkv, bqkv, wo, bo,
  norm1_gamma, norm1_beta,  // BERT family: after attention (post-LN); GPT-2: ln_1, before it (pre-LN)
  w1, b1, w2, b2,
  norm2_gamma, norm2_beta,  // BERT family: after the MLP; GPT-2: ln_2, before it
  final_norm_gamma, final_norm_beta,  // GPT-2's ln_f
  // the LM head's own tensors (its decoder is the word embeddings, tied)
  head_dense_w, head_dense_b, head_norm_gamma, head_norm_beta, head_bias,
};

// One row of an architecture's table. `name` is the Hugging Face name after the prefix, with "{}"
// where a layer number goes; `in` and `out` are the sizes of the engine's (in, out) form (`out` is
// unused by vector and embedding, whose shape is (in) and (in, d)).
struct TensorRule {
  std::string name;
  Weight weight;
  Layout layout;
  Dim in, out;
};

struct ArchitectureSpec {
  Architecture architecture;
  bool pre_layer_norm;      // GPT-2: LayerNorm before attention and MLP, plus a final ln_f
  bool causal;              // GPT-2: each token attends to itself and earlier ones only
  bool token_types;         // BERT, RoBERTa: add row 0 of token_type_embeddings
  bool embeddings_norm;     // the BERT family's LayerNorm after the embedding sum
  bool head_uses_erf_gelu;  // RoBERTa's lm_head applies erf GELU whatever hidden_act says
  std::vector<std::string> prefixes;  // accepted before every non-head name, e.g. "bert."
  std::vector<std::pair<std::string, std::string>> aliases;  // legacy name ending → current ending
  std::vector<TensorRule> tensors;    // every weight of the model, in its body (after the prefix)
  std::vector<TensorRule> head;       // the LM head's tensors: all present, or none (no head)
  // Tensors in the file that mean the same as another (present or not): read the first one given.
  std::vector<std::pair<std::string, std::string>> duplicates;
  std::vector<std::string> skipped;  // buffers and tied weights, ignored whatever their dtype
  std::string no_head_message;       // what the file lacks when it has no LM head
};

const ArchitectureSpec& architecture_spec(Architecture a);

}  // namespace multihead
