// The engine's weights, each kind described once (kWeightKinds in weights.cpp): its name, whether
// the model has one, each stack has one or each layer has one, its shape in config sizes, and how
// it is stored. The loader allocates, routes and size-checks from that table, the config check
// sums it, and the forward pass reads buffers by kind: no list of weights is written twice.
//
// Shapes are the engine's: a matrix is (in, out), as Q = X·W_q + b_q multiplies it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "multihead/matrix.h"

namespace multihead {

struct ModelConfig;

// A size a weight's shape is made of, taken from the config.
enum class Dim {
  one,        // 1: the row count of a vector
  vocab,      // V: vocab_size
  model,      // d: hidden_size
  mlp,        // ff: intermediate_size
  positions,  // P: rows of the position table (max_position_embeddings, GPT-2's n_positions)
  types,      // T: type_vocab_size
  q_width,    // h·dh: every query head's columns
  kv_width,   // kv·dh: every key/value head's columns
  head,       // dh: one head's width
  heads,      // h: query heads
  buckets,    // T5's relative position buckets (relative_attention_num_buckets)
};

// The stacks of layers a model's attention runs in. A one-stack model (BERT's encoder and GPT-2's
// decoder alike) has only `encoder`: its layers are the layers, as result.attention(layer, head)
// and ablation read them. An encoder–decoder adds the decoder's causal self-attention and its
// cross-attention over the encoder's output; cross layer l is decoder block l's second attention,
// with its own norm (norm1), and is a stack of its own so that hooks, results and ablation name
// every attention as (stack, layer, head).
enum class Stack : uint8_t { encoder, decoder, cross };
constexpr size_t kStackCount = 3;
// "encoder", "decoder", "cross": as the JS API names them.
const char* stack_name(Stack s);

enum class Weight : uint8_t {
  // the whole model
  word_embeddings,
  // each stack: what enters its first layer and leaves its last (a one-stack model's are its encoder's)
  position_embeddings, token_type_embeddings, embeddings_norm_w, embeddings_norm_b, final_norm_w, final_norm_b,
  relative_bias,  // T5's (buckets, h): a score bias per head by the bucket of the key's offset from the query
  // the whole model
  head_dense_w, head_dense_b, head_norm_w, head_norm_b, head_bias,  // a transformed LM head's
  lm_head,  // an untied LM head's decoder (V, d), as word_embeddings is stored
  // each layer: its attention
  wq, bq, wk, bk, wv, bv, wo, bo,
  // each layer: the rest. norm1 is the norm after attention (post-norm) or before it (pre-norm);
  // norm2 likewise for the MLP.
  norm1_w, norm1_b, norm2_w, norm2_b, mlp_in_w, mlp_in_b, mlp_out_w, mlp_out_b,
  mlp_gate_w,  // a gated MLP's gate: mlp_out(act(x·gate) ⊙ mlp_in(x))
  q_norm_w, k_norm_w,  // each head's queries and keys normalised before the rotation (Qwen3, Gemma 3)
  attn_out_norm_w, mlp_out_norm_w,  // a sandwich block's norms of the attention's and the MLP's outputs (Gemma 3)
  count
};
constexpr size_t kWeightCount = size_t(Weight::count);

enum class Scope { model, stack, layer };
enum class Storage {
  plain,   // row-major floats
  packed,  // a GEMM's right operand, packed once into kernels::gemm's panels (PackedMatrix)
};

struct WeightKind {
  Weight weight;
  const char* name;  // for messages
  Scope scope;
  Dim rows, cols;
  Storage storage;
};

// The description of `w`.
const WeightKind& weight_kind(Weight w);

// Whether `w` is a norm's weight (its scale, not its bias): what Gemma's (1 + w) applies to.
bool is_norm_weight(Weight w);

// The size `d` stands for in `c`.
size_t dim_size(const ModelConfig& c, Dim d);

// One weight's buffer: (rows, cols), plain or packed, as floats or, for a BF16 checkpoint's
// matrices and embedding tables, as the bfloat16 values the file holds (half the memory; widening
// one is exact). An empty buffer (size 0) is a weight the model does not have.
struct Buffer {
  size_t rows = 0, cols = 0;
  Storage storage = Storage::plain;
  UninitializedFloats data;   // rows·cols, or packed_size(rows, cols); empty when the values are bfloat16
  UninitializedHalves halves; // the same layout as bfloat16, or empty

  bool empty() const { return data.empty() && halves.empty(); }
  bool is_bf16() const { return !halves.empty(); }
  size_t panel_stride() const { return kernels::panel_stride(rows); }
  // Floats a buffer of this shape and storage takes.
  static size_t floats(size_t rows, size_t cols, Storage storage) {
    return storage == Storage::packed ? kernels::packed_size(rows, cols) : rows * cols;
  }
};

// A set of weights by kind: the whole model's, one stack's, or one layer's.
struct WeightSet {
  std::array<Buffer, kWeightCount> buffers;

  Buffer& operator[](Weight w) { return buffers[size_t(w)]; }
  const Buffer& operator[](Weight w) const { return buffers[size_t(w)]; }
  // A plain float buffer's floats, or nullptr when the model has no such weight (a missing bias)
  // or keeps it as bfloat16.
  const float* data(Weight w) const { return (*this)[w].data.empty() ? nullptr : (*this)[w].data.data(); }
};

}  // namespace multihead
