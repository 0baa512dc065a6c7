// A model's configuration: the sizes and options the forward pass needs, their limits, and the
// parser that reads them from a Hugging Face config.json of any supported model type, each in its
// own field names (BERT's hidden_size is DistilBERT's dim and GPT-2's n_embd).
//
// Every error names the field and its value as the file wrote it, prefixed by "config.json: ".
// The limits are checked before anything is allocated: a config that passes describes a model
// whose weights could fit in kMaxModelBytes. Options the forward pass does not implement (GPT-2's
// scale_attn_by_inverse_layer_idx, a relative position_embedding_type, another activation) are
// refused by name, never ignored. This file does not look at the weights (ModelLoader does).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "multihead/architecture.h"
#include "multihead/attention.h"
#include "multihead/rope.h"

namespace multihead {

struct ModelConfig {
  const ArchitectureSpec* architecture = nullptr;
  int vocab_size = 0;               // V
  int hidden_size = 0;              // d
  int num_hidden_layers = 0;        // the encoder's blocks, or a one-stack model's
  int num_decoder_layers = 0;       // an encoder–decoder's decoder blocks, each with a cross-attention; 0 for one stack
  int num_attention_heads = 0;      // h
  int num_key_value_heads = 0;      // kv: key/value heads, h a multiple of kv
  int head_dim = 0;                 // dh: d / h unless config.json says otherwise
  int intermediate_size = 0;        // MLP width, ff
  int max_position_embeddings = 0;  // rows of the position table
  int type_vocab_size = 0;          // rows of the token-type table; 0 for architectures without one
  float layer_norm_eps = 1e-12f;
  Activation activation = Activation::gelu_erf;
  int position_offset = 0;  // the first token's row of the position table: RoBERTa's padding_idx + 1
  RopeConfig rope;          // with Positions::rotary: max_position_embeddings is then a limit, not a table
  RopeConfig sliding_rope;  // sliding layers' own, where the architecture gives them one (Gemma 3)
  bool tie_word_embeddings = false;  // an untied architecture's head is the word embeddings after all
  std::vector<int> windows;          // per layer: the keys a query sees through its sliding window, 0 for all; empty: all 0
  double attention_scale = 0;        // the scores' factor, 0 for 1/√head_dim (Gemma: query_pre_attn_scalar^−½)
  double attention_softcap = 0;      // cap·tanh(score/cap) on the scores, 0 for none
  double logit_softcap = 0;          // the same on the LM head's logits
  float embedding_scale = 1;         // what the word embeddings are multiplied by (Gemma's √hidden, set as it loads)
  std::optional<Mlp> mlp_kind;       // T5's feed_forward_proj's; none: the architecture's
  int relative_buckets = 0;          // Positions::relative: T5's relative_attention_num_buckets; else 0
  int relative_max_distance = 0;     // and its relative_attention_max_distance
  float head_scale = 1;              // the last hidden state's factor before the LM head (HeadScale)

  // The MLP this model has: the architecture's, or the one T5's config names.
  Mlp mlp() const { return mlp_kind.value_or(architecture->mlp); }
  // The LM head this model has: the architecture's, tied when an untied one's config says so.
  LmHead lm_head() const {
    return architecture->lm_head == LmHead::untied && tie_word_embeddings ? LmHead::tied : architecture->lm_head;
  }

  // The longest input: the position rows from the offset on (RoBERTa's 514 rows give 512 tokens),
  // and never more than kMaxTokens (Llama 3.2's 131072 positions run 4096 tokens here).
  int max_tokens() const { return std::min(max_position_embeddings - position_offset, kMaxTokens); }
  // The keys a query of layer `layer` sees through its sliding window, or 0 for all of them.
  int window(int layer) const { return size_t(layer) < windows.size() ? windows[size_t(layer)] : 0; }
  // The stacks the model has: the encoder alone, or all three (weights.h's Stack).
  int stack_count() const { return num_decoder_layers > 0 ? int(kStackCount) : 1; }
  // The layers of stack `s`: the decoder's and the cross-attention's are the decoder's blocks.
  int layers(Stack s) const { return s == Stack::encoder ? num_hidden_layers : num_decoder_layers; }
  // Every attention layer of every stack: what an ablation list covers, heads times this.
  int attention_layers() const { return num_hidden_layers + 2 * num_decoder_layers; }
  // The attention of layer `layer` of stack `stack`: its shape, mask, window, scale and soft cap.
  // An encoder–decoder's decoder is causal, its cross-attention sees every source token.
  AttentionConfig attention(Stack stack = Stack::encoder, int layer = 0) const {
    const bool causal = stack == Stack::decoder || (stack == Stack::encoder && architecture->mask == Mask::causal);
    return {.d_model = hidden_size, .n_heads = num_attention_heads, .n_kv_heads = num_key_value_heads, .d_head = head_dim,
            .causal = causal, .window = stack == Stack::encoder ? window(layer) : 0, .scale = attention_scale,
            .softcap = attention_softcap, .ordered_queries = stack == Stack::cross};
  }
  // Layer `layer`'s RoPE: the sliding one in a sliding layer of an architecture that has one.
  const RopeConfig& rope_of(int layer) const {
    const RopeFields* f = architecture->config.rope;
    return f && f->sliding_theta && window(layer) > 0 ? sliding_rope : rope;
  }
};

// Limits checked before allocating.
constexpr int kMaxVocabulary = 1 << 20;
constexpr int kMaxLayers = 64;
constexpr int kMaxIntermediate = 4 * kMaxDModel;
constexpr int kMaxTypeVocabulary = 16;
constexpr int kMaxRelativeBuckets = 1024;  // T5's relative_attention_num_buckets (32 in every T5)
// max_position_embeddings of an architecture without a position table (rotary): a bound, not rows.
constexpr int kMaxRotaryPositions = 1 << 24;
// The model's weights as stored (float32, or bfloat16 for a BF16 checkpoint's matrices and
// embedding tables): config.json is refused when even bfloat16 would pass it, the file when its
// dtypes do. The WASM heap can grow to 4 GiB (-sMAXIMUM_MEMORY=4GB); of
// that, a forward pass may take kMaxForwardBytes (1 GiB) and loading needs, besides the weights,
// one staged tensor (at most kMaxDModel × kMaxIntermediate floats, 256 MiB) and the download's
// chunk; the remaining 256 MiB cover the runtime, the run's activations and fragmentation:
// 4 − 1 − 0.25 − 0.25 = 2.5 GiB. gpt2-medium (355M parameters, 1.42 GB) and bert-large (1.34 GB)
// fit as float32; gpt2-large (774M, 3.1 GB) does not, but TinyLlama's BF16 file (1.1B, 2.2 GB) does.
constexpr size_t kMaxModelBytes = size_t{5} << 29;

// `bytes` as "1.34 GiB", for the messages that name these limits.
std::string gib_text(double bytes);

// A weight as a model holds it: its kind, and for a stack's or a layer's weight, its stack.
struct PlacedWeight {
  Weight weight;
  Stack stack;
  bool operator==(const PlacedWeight&) const = default;
};

// Whether rule `r` applies to `c` (its When).
bool applies(const ModelConfig& c, const TensorRule& r);

// Every weight `c`'s architecture has: its body's, and with `head` its LM head's own, each once;
// a computed table (Positions::sinusoidal's) too.
std::vector<PlacedWeight> model_weights(const ModelConfig& c, bool head);

// How many buffers of `w` a model has: one per layer of its stack, or one.
int buffer_count(const ModelConfig& c, const PlacedWeight& w);

// Floats of every buffer of those weights (layer weights once per layer), as stored: with
// `storage_sizes` packed matrices count their padding, without it every weight is rows × cols.
// In double so that no field values can overflow the computation.
double model_floats(const ModelConfig& c, bool head, bool storage_sizes);

// Bytes of the model's float32 weights for `c` without an LM head.
double model_weight_bytes(const ModelConfig& c);

// Reads and checks a Hugging Face config.json of a model_type of all_architectures().
// Throws std::invalid_argument for a malformed file, a wrong type or an unsupported option,
// LimitError for a value outside its limits; every message starts with "config.json: ".
ModelConfig parse_model_config(const std::string& json_text);

// The same checks on a ModelConfig built in code; messages start with `source` and ": " and use
// the engine's field names.
void check_model_config(const ModelConfig& c, const std::string& source = "ModelConfig");

}  // namespace multihead
