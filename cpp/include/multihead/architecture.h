// What distinguishes one model architecture from another, as data: the kinds of its steps (where
// the norms sit, which norm, which MLP, which positions, which mask, which LM head), the
// config.json fields it reads, and the table from Hugging Face tensor names to the engine's weights.
// Model runs one forward pass configured by it; ModelLoader reads every checkpoint through its table;
// the config parser reads config.json through its fields.
//
// Each architecture is one file in cpp/src/architectures/, written with designated initialisers,
// defining a function of the file's name (registry.cpp lists them). Nothing here runs a layer or
// reads a file.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "multihead/weights.h"

namespace multihead {

struct ModelConfig;

// How many stacks of layers the model has (weights.h's Stack).
enum class Stacks {
  one,              // the encoder alone (BERT) or the decoder alone (GPT-2): Stack::encoder
  encoder_decoder,  // a bidirectional encoder over the source, and a causal decoder over the target whose
                    // blocks add a cross-attention over the encoder's output after their self-attention (T5)
};

// Where a block's two norms sit. A decoder block's cross-attention sits between its
// self-attention and its MLP, with its own norm placed as the others are.
enum class Block {
  post_norm,  // x = norm1(x + attention(x)); x = norm2(x + mlp(x)): the BERT family
  pre_norm,   // x = x + attention(norm1(x)); x = x + mlp(norm2(x)); a final norm after the last block: GPT-2
  parallel,   // both branches read the same input: x = x + attention(norm1(x)) + mlp(norm2(x)); a final
              // norm: GPT-NeoX (Pythia)
  sandwich,   // pre-norm, each branch's output normalised too: x = x + attn_out_norm(attention(norm1(x)));
              // x = x + mlp_out_norm(mlp(norm2(x))); a final norm: Gemma 3
};

enum class Norm {
  layer_norm,  // (x − mean)/√(variance + eps)·weight + bias
  rms_norm,    // x/√(mean(x²) + eps)·weight: Llama's RMSNorm, T5's LayerNorm, no bias
  rms_norm_one_plus,  // x/√(mean(x²) + eps)·(1 + weight): Gemma's, every norm of the model (1 is added as it loads)
};

enum class Mlp {
  dense,  // mlp_out(activation(mlp_in(x))), the activation from config.json
  gated,  // mlp_out(activation(x·mlp_gate) ⊙ mlp_in(x)): Llama's gate_proj, up_proj and down_proj
};

// The MLP's activation: exact erf GELU (BERT's "gelu"), the tanh approximation (GPT-2's
// "gelu_new", Gemma's "gelu_pytorch_tanh"), SiLU, x·σ(x) (Llama's "silu", Marian's "swish"), or
// max(x, 0) (T5's "relu").
enum class Activation { gelu_erf, gelu_tanh, silu, relu };

enum class Positions {
  learned,  // a row of position_embeddings per position, from config's position_offset
  rotary,   // no table: the queries and keys are rotated by position (RoPE, rope.h)
  sinusoidal,  // a table computed, not stored: sin in the first half of the width, cos in the second (Marian)
  relative,    // no table: each head's scores get a learned bias by the bucket of key − query (T5, positions.h)
};

enum class Mask { bidirectional, causal };  // causal: a token sees itself and the tokens before it

// Which layers attend through a sliding window (a query sees only the last sliding_window keys).
enum class Windows {
  none,         // none: every layer sees every key its mask allows
  every_layer,  // config.json's sliding_window (an integer, or null for none) in every layer: Mistral
  by_layer_type,  // sliding_window in the layers layer_types calls "sliding_attention", or by the older
                  // sliding_window_pattern P, every layer but each P-th; the others full: Gemma 3
};

// What the word embeddings are multiplied by as they enter.
enum class EmbeddingScale {
  none,
  sqrt_hidden,  // √hidden_size, rounded to the stored dtype of the embeddings as transformers does (Gemma)
  from_config,  // √hidden_size when config.json's scale_embedding is true (BART, Marian)
};

// What the last hidden state is multiplied by before the LM head.
enum class HeadScale {
  none,
  rsqrt_hidden_when_tied,  // hidden_size^−½ when the head is the word embeddings (T5)
};

enum class LmHead {
  tied,         // logits = word_embeddings · h (GPT-2)
  transformed,  // the same after dense, activation and norm, plus a bias (the masked-LM heads)
  untied,       // logits = lm_head · h, a matrix of its own; tied instead when config.json's
                // tie_word_embeddings says so (ConfigFields::tie)
};

// The activation of a transformed LM head: the MLP's, or erf GELU whatever config says (RoBERTa).
enum class HeadActivation { as_mlp, gelu_erf };

// How a tensor is stored in the file, and so how it reaches the engine's buffer.
enum class Layout {
  linear,      // nn.Linear weight, shape (out, in): transposed into the buffer's (in, out)
  conv1d,      // GPT-2's Conv1D weight, shape (in, out): as the buffer is
  fused_qkv,   // Conv1D (in, q + 2·kv): W_q | W_k | W_v column blocks, into wq, wk and wv
  fused_bias,  // (q + 2·kv): b_q | b_k | b_v, into bq, bk and bv
  interleaved_qkv,   // nn.Linear (3·h·dh, d) whose rows go head by head, q | k | v within each (GPT-NeoX's
                     // query_key_value: row h·3·dh + t·dh + j, t = 0, 1, 2): into wq, wk and wv
  interleaved_bias,  // (3·h·dh) in the same order: into bq, bk and bv
  vector,      // (n): the buffer as it is
  row,         // (1, n): a vector stored as one row (BART's final_logits_bias)
  embedding,   // (rows, d): the table as it is
};

// Which part of the file a tensor belongs to: the body, which every file has, or the LM head's
// own tensors, all present or none (the file then has no head).
enum class Part { body, head };

// Which configurations a rule applies to: every one, or those whose MLP is of one kind (T5's
// feed_forward_proj makes it dense, wi, or gated, wi_0 and wi_1).
enum class When { always, dense_mlp, gated_mlp };

// One row of an architecture's table. `name` is the Hugging Face name after the prefix, with "{}"
// where a layer number goes. The tensor's shape in the file follows from its weight's shape
// (weights.h) and its layout. An optional tensor may be absent: its buffer is then zeros. A stack's
// or a layer's weight belongs to `stack`.
struct TensorRule {
  std::string name;
  Weight weight;  // for the fused layouts, the first of the three it fills (wq, bq): see filled_weights
  Layout layout;
  Part part = Part::body;
  bool optional = false;
  Stack stack = Stack::encoder;
  When when = When::always;
};

// Where config.json keeps one integer of ModelConfig, and its default.
constexpr int kRequired = -1;
constexpr int kFourTimesHidden = -2;  // GPT-2's n_inner: null or absent means 4 · n_embd
struct IntField {
  const char* name;
  int ModelConfig::*member;
  int fallback;                 // when absent: a value, kRequired, or one computed (kFourTimesHidden, ...)
  const char* older = nullptr;  // an older name read when `name` is absent (GPT-2's n_ctx)
  int if_null = kRequired;      // when null, where that differs from absent (Qwen3's head_dim: absent 128,
                                // null hidden / heads); kRequired: as absent for a computed fallback, else refused
};

constexpr int kSameAsHeads = -3;      // num_key_value_heads: absent or null means num_attention_heads
constexpr int kHiddenOverHeads = -4;  // head_dim: absent or null means hidden_size / num_attention_heads
constexpr int kSameAsLayers = -5;     // T5's num_decoder_layers: absent or null means num_layers

// Where config.json keeps the rotary positions' settings, besides rope_scaling / rope_parameters.
struct RopeFields {
  const char* theta;           // the base: "rope_theta" (GPT-NeoX: "rotary_emb_base")
  double theta_fallback;
  const char* fraction;        // the share of head_dim that rotates: "partial_rotary_factor" (GPT-NeoX: "rotary_pct")
  double fraction_fallback = 1.0;
  // Sliding layers' own base, or null when they share the others' (Gemma 3: "rope_local_base_freq";
  // in v5's layout, rope_parameters' "sliding_attention").
  const char* sliding_theta = nullptr;
  double sliding_theta_fallback = 10000.0;
};

// An option the forward pass supports only one way: present with another value, it is refused.
struct RequiredValue {
  const char* name;
  const char* value;  // JSON text
};

// The config.json fields an architecture reads.
struct ConfigFields {
  std::vector<IntField> ints;
  const char* activation;            // the field naming the MLP's activation
  const char* activation_fallback;
  const char* eps;                   // the norm's epsilon, or nullptr: fixed at eps_fallback
  double eps_fallback;
  const char* padding = nullptr;     // RoBERTa's pad_token_id: positions start at its value + 1
  std::vector<RequiredValue> required;
  const RopeFields* rope = nullptr;  // with Positions::rotary
  bool tie_fallback = false;         // an untied head's tie_word_embeddings when config.json has none
  int window_fallback = 0;           // sliding_window when config.json has none (null is none)
  // The scores' scale as query_pre_attn_scalar^−½ (Gemma), or null for 1/√head_dim.
  const char* query_scalar = nullptr;
  double query_scalar_fallback = 0;
  // Soft caps, cap·tanh(x/cap), on the scores and on the logits (Gemma): attn_logit_softcapping and
  // final_logit_softcapping, null for none. Without this, the architecture has none.
  bool softcaps = false;
  bool unscaled_scores = false;  // the scores are Q·Kᵀ, without 1/√head_dim (T5)
  // A fixed first row of the position table, whose rows the table adds to max_position_embeddings
  // (BART reads row position + 2).
  int position_offset = 0;
  // T5's feed_forward_proj ("relu", "gated-gelu", ...): the MLP's kind and activation, read
  // instead of `activation` when set.
  const char* feed_forward_proj = nullptr;
  // Pairs of config.json fields that must hold the same value where both are given (BART's
  // encoder_attention_heads and decoder_attention_heads): the engine has one of each size.
  std::vector<std::pair<const char*, const char*>> equal;
};

struct ArchitectureSpec {
  const char* model_type;  // as config.json's model_type spells it: "bert", "gpt2"
  const char* name;        // as a sentence names it: "BERT", "GPT-2"
  Block block;
  Norm norm;
  Mlp mlp;
  Positions positions;
  Mask mask;
  LmHead lm_head;
  Windows windows = Windows::none;
  EmbeddingScale embedding_scale = EmbeddingScale::none;
  HeadActivation head_activation = HeadActivation::as_mlp;
  Stacks stacks = Stacks::one;
  HeadScale head_scale = HeadScale::none;
  ConfigFields config;
  std::vector<std::string> prefixes;                         // accepted before every body name, e.g. "bert."
  std::vector<std::pair<std::string, std::string>> aliases;  // legacy name ending → current ending
  std::vector<TensorRule> tensors;                           // the body, then the LM head's own tensors
  // Tensors in the file that mean the same as another (present or not), as {alternate, primary},
  // names after the prefix: of those the file has, the primary is read, or else the first
  // alternate listed (T5 files keep the shared embeddings as shared, encoder.embed_tokens or
  // decoder.embed_tokens, some of them several).
  std::vector<std::pair<std::string, std::string>> duplicates;
  std::vector<std::string> skipped;  // buffers and tied weights, ignored whatever their dtype
  std::string no_head_message;       // what the file lacks when it has no LM head

  // Whether the table fills `w` (for the body or, with the head, for its own tensors).
  bool has(Weight w, bool with_head = true) const;
  bool encoder_decoder() const { return stacks == Stacks::encoder_decoder; }
};

// The weights a rule fills: its own, or a fused layout's three (wq, wk, wv or bq, bk, bv).
std::vector<Weight> filled_weights(const TensorRule& r);

// The architecture config.json's model_type names, or nullptr.
const ArchitectureSpec* find_architecture(const std::string& model_type);
// Every architecture, in the registry's order (architectures/registry.cpp).
const std::vector<const ArchitectureSpec*>& all_architectures();
// "bert, distilbert, roberta, gpt2", for messages.
std::string architecture_list();

}  // namespace multihead
