// Model: the one forward pass of every architecture, configured by its ArchitectureSpec: two
// blocks of named steps (post-norm and pre-norm), the steps themselves, and the LM head. Loading is
// model_loader.cpp's; config parsing is config.cpp's.
#include "multihead/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "multihead/kernels.h"
#include "multihead/model_loader.h"
#include "multihead/parallel.h"
#include "multihead/positions.h"

namespace multihead {
namespace {

Model load(const ModelConfig& config, const SafetensorsFile& file) {
  ModelLoader loader(config, file.header());
  loader.write(file.data(), file.header().data_size());
  return loader.finish();
}

// The module a weight belongs to, named as the checkpoint names it, for messages: the rule's name
// without its layer part and its ".weight" ("attention.output.LayerNorm", "ln_1", "mlp.c_fc").
std::string step_name(const ArchitectureSpec& spec, Weight weight, Stack stack = Stack::encoder) {
  for (const TensorRule& r : spec.tensors) {
    if (r.weight != weight || r.stack != stack) continue;
    std::string name = r.name;
    const size_t hole = name.find("{}.");
    if (hole != std::string::npos) name = name.substr(hole + 3);
    const size_t dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
  }
  return "";
}

// Where an overflow happened, for messages: "layer l" with l counted from 0 as in the tensor names
// and the JS API (result.attention(layer, head)).
std::string layer_name(size_t l) { return "layer " + std::to_string(l); }

// The least work worth a thread of its own, in rows to normalise and values to activate.
constexpr size_t kRowsPerThread = 16;
constexpr size_t kValuesPerThread = 16384;

// What a residual sum's overflow message says of it.
constexpr const char* kAttentionSum = "the residual sum of the layer's input and the attention output";
constexpr const char* kAttentionCause = "the attention output is too large";
constexpr const char* kCrossSum = "the residual sum of the cross-attention's input and output";
constexpr const char* kCrossCause = "the cross-attention output is too large";
constexpr const char* kMlpSum = "the residual sum of the MLP's input and output";
constexpr const char* kMlpCause = "the MLP output is too large";

std::string short_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

// Throws unless 0 ≤ id < vocab_size, naming the id by describe() ("ids[3]", "token"): as
// check_fits's, it runs only on failure, so a prompt's ids build no strings.
template <class Describe>
void check_in_vocabulary(int32_t id, int vocab_size, Describe&& describe) {
  if (id < 0 || id >= vocab_size) {
    throw std::invalid_argument(describe() + " is " + std::to_string(id) + ", outside the vocabulary 0 to " + std::to_string(vocab_size - 1));
  }
}

// The encoder's output as a decoder's memory: (n_source, d) rows within the model's length, finite.
void check_memory(const Matrix& memory, const ModelConfig& c) {
  if (memory.rows() < 1 || memory.rows() > c.max_tokens() || memory.cols() != c.hidden_size) {
    throw std::invalid_argument("memory is (" + std::to_string(memory.rows()) + ", " + std::to_string(memory.cols()) +
                                "), expected the encoder's output (n_source, d_model) with 1 ≤ n_source ≤ " + std::to_string(c.max_tokens()));
  }
  if (!std::isfinite(largest_magnitude(memory.data(), size_t(memory.size())))) throw std::invalid_argument("memory is not finite");
}

// Throws if x, just formed by `sum` (the embeddings, or a residual add), is not finite.
void check_sum(const Matrix& x, const std::string& where, const char* sum, const char* cause) {
  if (!std::isfinite(largest_magnitude(x.data(), size_t(x.size())))) {
    throw OverflowError(where + ": " + sum + " overflowed float32 (" + cause + ")");
  }
}

// out (n, d) ← LayerNorm(in), or RMSNorm(in) with `rms`; out may be in. Checks in first: small
// enough that the kernel's sum of squares cannot overflow. With |x| ≤ M, LayerNorm's deviations are
// at most 2M and their squares sum to at most 4·d·M², so M ≤ √(FLT_MAX / 8d) keeps that sum within
// half of FLT_MAX, room for rounding; RMSNorm squares x itself, d·M², so M ≤ √(FLT_MAX / 2d). Past
// it the sum can become infinity, and then the output silently equals beta (or 0), which no check
// of the output can tell from a real result. The bound is sufficient, not necessary, but far above
// any real activation (2.3e17 at d = 768), and it costs one scan. Then checks the output, which a
// huge gamma or beta can still overflow.
void normalize(const kernels::KernelSet& k, bool rms, const Matrix& in, Matrix& out, const float* gamma, const float* beta, float eps,
               const std::string& where, const std::string& norm) {
  const size_t n = size_t(in.rows()), d = size_t(in.cols());
  const float largest = largest_magnitude(in.data(), n * d);
  const double limit = std::sqrt(double(std::numeric_limits<float>::max()) / ((rms ? 2.0 : 8.0) * double(d)));
  if (largest > limit) {
    throw OverflowError(where + ": the " + (rms ? "mean square" : "variance") + " in " + norm + " overflowed float32 (its input reaches " +
                        short_number(largest) + "; with hidden_size = " + std::to_string(d) + " it is sure to fit only below " +
                        short_number(limit) + ")");
  }
  out.resize(in.rows(), in.cols());
  parallel_ranges(n, kRowsPerThread, [&](size_t r0, size_t r1) {
    if (rms) {
      k.rms_norm(r1 - r0, d, in.data() + r0 * d, d, gamma, eps, out.data() + r0 * d, d);
    } else {
      k.layer_norm(r1 - r0, d, in.data() + r0 * d, d, gamma, beta, eps, out.data() + r0 * d, d);
    }
  });
  check_fits(out.data(), n * d, [&] { return where + ": " + norm; }, "its weight or bias is too large");
}

// C (m, b.cols) = A·B + bias, B a packed weight of either precision.
void multiply(size_t m, const float* a, size_t lda, const Buffer& b, const float* bias, float* c, size_t ldc) {
  multihead::multiply(m, b.cols, b.rows, a, lda, b.data.data(), b.is_bf16() ? b.halves.data() : nullptr, bias, c, ldc);
}

// Row `row` of a plain (rows, d) table of either precision (the word embeddings), as floats.
void table_row(const Buffer& table, size_t row, float* out) {
  const size_t d = table.cols;
  if (table.is_bf16()) {
    const uint16_t* in = table.halves.data() + row * d;
    for (size_t c = 0; c < d; ++c) out[c] = kernels::bf16_to_f32(in[c]);
  } else {
    std::copy(table.data.data() + row * d, table.data.data() + (row + 1) * d, out);
  }
}

// out (V) = E (V, d) · h (d), E of either precision read in place: the LM head's logits, a
// table-times-vector kernel over blocks of rows, the same sums for a float or a bfloat16 table.
void table_times(const Buffer& table, const float* h, float* out) {
  const auto& k = kernels::active_kernels();
  const size_t d = table.cols;
  parallel_ranges(table.rows, 256, [&](size_t r0, size_t r1) {
    if (table.is_bf16()) {
      k.gemv_bf16(r1 - r0, d, table.halves.data() + r0 * d, h, out + r0);
    } else {
      k.gemv(r1 - r0, d, table.data.data() + r0 * d, h, out + r0);
    }
  });
}

// max(x, 0): T5's ReLU, simple enough for the compiler to vectorise, so it has no kernel of its own.
void relu(size_t n, const float* x, float* y) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
}

// x = act(x) elementwise over `count` values, in the kernel `a` names, spread over the threads.
// Every range but the last starts and ends on a multiple of 16, so each value meets the same SIMD
// lanes or scalar tail as in one call over all of them (the two can round differently).

void activate(const kernels::KernelSet& k, Activation a, size_t count, float* x) {
  const kernels::GeluFn act = a == Activation::silu ? k.silu : a == Activation::gelu_tanh ? k.gelu_tanh : a == Activation::relu ? relu : k.gelu;
  constexpr size_t kGroup = 16;
  parallel_ranges((count + kGroup - 1) / kGroup, kValuesPerThread / kGroup, [&](size_t g0, size_t g1) {
    const size_t begin = g0 * kGroup, end = std::min(count, g1 * kGroup);
    act(end - begin, x + begin, x + begin);
  });
}

}  // namespace

Model::Model(const ModelConfig& config, const SafetensorsFile& file) : Model(load(config, file)) {}

Model::Model(const ModelConfig& config, ModelWeights weights) : config_(config), weights_(std::move(weights)) {
  const ArchitectureSpec& spec = *config.architecture;
  std::vector<LayerWeights>& encoder = weights_.stacks[size_t(Stack::encoder)].layers;  // RoPE and head norms: one-stack models'
  for (size_t l = 0; l < encoder.size(); ++l) {
    LayerWeights& layer = encoder[l];
    if (spec.positions == Positions::rotary) layer.attention.set_rotation(rope_rotation(config.rope_of(int(l)), config.head_dim));
    if (!layer.weights[Weight::q_norm_w].empty()) {
      const auto vector = [&](Weight w) { return std::vector<float>(layer.weights.data(w), layer.weights.data(w) + config.head_dim); };
      layer.attention.set_head_norms(vector(Weight::q_norm_w), vector(Weight::k_norm_w), config.layer_norm_eps);
    }
  }
  steps_ = {.embeddings_norm = step_name(spec, Weight::embeddings_norm_w), .norm1 = step_name(spec, Weight::norm1_w),
            .norm2 = step_name(spec, Weight::norm2_w), .mlp_in = step_name(spec, Weight::mlp_in_w),
            .mlp_gate = step_name(spec, Weight::mlp_gate_w), .mlp_out = step_name(spec, Weight::mlp_out_w),
            .final_norm = step_name(spec, Weight::final_norm_w), .attn_out_norm = step_name(spec, Weight::attn_out_norm_w),
            .mlp_out_norm = step_name(spec, Weight::mlp_out_norm_w), .cross_norm = step_name(spec, Weight::norm1_w, Stack::cross)};
}

void Model::check_ids(const std::vector<int32_t>& ids, int first_position) const {
  if (ids.empty()) throw std::invalid_argument("ids must hold at least 1 token, got 0");
  if (ids.size() > size_t(config_.max_tokens()) - size_t(first_position)) {
    throw LimitError((first_position ? std::to_string(first_position) + " tokens before and ids of " + std::to_string(ids.size()) + " are"
                                     : "ids has " + std::to_string(ids.size()) + " tokens,") + " above the model's limit of " +
                     std::to_string(config_.max_tokens()) + " (max_position_embeddings = " +
                     std::to_string(config_.max_position_embeddings) + ")");
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    check_in_vocabulary(ids[i], config_.vocab_size, [&] { return "ids[" + std::to_string(i) + "]"; });
  }
}

Matrix Model::embed(const std::vector<int32_t>& ids, int first_position, Stack stack) const {
  const WeightSet& w = weights_.stacks[size_t(stack)].weights;  // positions, token types, the embeddings' norm
  const size_t n = ids.size(), d = size_t(config_.hidden_size);
  const bool types = !w[Weight::token_type_embeddings].empty(), positions = !w[Weight::position_embeddings].empty();
  Matrix x = Matrix(Eigen::Index(n), Eigen::Index(d));  // (n, d)
  std::vector<float> word(d);
  for (size_t i = 0; i < n; ++i) {
    table_row(weights_.weights[Weight::word_embeddings], size_t(ids[i]), word.data());
    const size_t at = size_t(config_.position_offset) + size_t(first_position) + i;
    const float* position = positions ? w.data(Weight::position_embeddings) + at * d : nullptr;
    const float* type = types ? w.data(Weight::token_type_embeddings) : nullptr;  // row 0: token type 0
    const float scale = config_.embedding_scale;
    for (size_t c = 0; c < d; ++c) {
      x(Eigen::Index(i), Eigen::Index(c)) = word[c] * scale + (position ? position[c] : 0.0f) + (type ? type[c] : 0.0f);
    }
  }
  if (positions || config_.embedding_scale != 1) {  // a word embedding alone was checked finite when it was loaded
    check_sum(x, "embeddings", types ? "the sum of the word, position and token type embeddings"
                               : positions ? "the sum of the word and position embeddings" : "the scaled word embeddings",
              "the embeddings are too large");
  }
  if (!w[Weight::embeddings_norm_w].empty()) norm(x, x, w, Weight::embeddings_norm_w, Weight::embeddings_norm_b, "embeddings", steps_.embeddings_norm);
  return x;
}

// out (n, d) ← the architecture's norm of in; out may be in. `bias` is Weight::count for a norm
// that has none in any architecture.
void Model::norm(const Matrix& in, Matrix& out, const WeightSet& w, Weight weight, Weight bias, const std::string& where,
                 const std::string& step) const {
  const bool rms = config_.architecture->norm != Norm::layer_norm;  // Gemma's 1 + w was added as it loaded
  const float* beta = bias == Weight::count ? nullptr : w.data(bias);
  normalize(kernels::active_kernels(), rms, in, out, w.data(weight), beta, config_.layer_norm_eps, where, step);
}

// p.trace ← layer l's attention over `input` (n, d), handed to the run's hook; p.run, if any, keeps
// a copy of the input. In the one-row layer (one_row), the queries are p.row's alone, over every key.
void Model::attend(size_t l, const Matrix& input, Pass& p) const {
  if (p.run) p.run->inputs.push_back(input);
  try {
    const int n = int(input.rows());
    const bool one = one_row(l, p);
    AttentionInput in{.x_q = input.data() + (one ? size_t(p.row) * size_t(input.cols()) : 0), .n_queries = one ? 1 : n,
                      .x_kv = input.data(), .n_keys = n, .query_position = one ? p.row : 0,
                      .ablation = layer_ablation(p.ablation, p.stack, l)};
    Matrix patch_row;  // the one row's patch, when the patch covers every row
    if (p.patch.layer == int(l)) {
      in.patch_head = p.patch.head;
      in.patch = p.patch.output;
      if (one && p.patch.output->rows() != 1) {
        patch_row = p.patch.output->row(p.row);
        in.patch = &patch_row;
      }
    }
    if (p.caches) {
      KvCache& cache = (*p.caches)[l];
      in.cache = &cache;
      in.query_position = cache.length;
      in.n_keys = cache.length + n;
    }
    in.score_bias = relative_bias(size_t(in.n_queries), size_t(in.n_keys), p);
    layers(p)[l].attention.forward_into(in, p.trace);
  } catch (const OverflowError& e) {
    throw OverflowError(where(l, p) + ": " + e.what());
  }
  if (p.record) p.record->outputs.push_back(p.trace.concat);
  if (p.on_layer) p.on_layer(p.stack, int(l), p.trace);
}

const float* Model::relative_bias(size_t n_queries, size_t n_keys, Pass& p) const {
  if (config_.architecture->positions != Positions::relative) return nullptr;
  if (p.score_bias.size() != size_t(config_.num_attention_heads) * n_queries * n_keys) {  // every layer of the stack reads block 0's table
    const Buffer& table = weights_.stacks[size_t(p.stack)].weights[Weight::relative_bias];
    p.score_bias = multihead::relative_bias(table.data.data(), config_.num_attention_heads, int(n_queries), int(n_keys),
                                            int(n_keys - n_queries), p.stack == Stack::encoder, config_.relative_buckets,
                                            config_.relative_max_distance);
  }
  return p.score_bias.data();
}

void Model::cross_attend(size_t l, Matrix& x, Pass& p) const {
  const LayerWeights& w = weights_.stacks[size_t(Stack::cross)].layers[l];
  const bool pre_norm = config_.architecture->block != Block::post_norm;
  const std::string at = where(l, p);
  if (pre_norm) norm(x, p.normed, w.weights, Weight::norm1_w, Weight::norm1_b, at, steps_.cross_norm);
  const Matrix& input = pre_norm ? p.normed : x;
  if (p.run) p.run->cross_inputs.push_back(input);
  try {
    KvCache* memory = p.memory_caches ? &(*p.memory_caches)[l] : nullptr;
    const AttentionInput in{.x_q = input.data(), .n_queries = int(input.rows()), .x_kv = memory ? nullptr : p.memory->data(),
                            .n_keys = memory ? memory->length : int(p.memory->rows()), .query_position = p.first_position,
                            .ablation = layer_ablation(p.ablation, Stack::cross, l), .memory = memory};
    w.attention.forward_into(in, p.trace);
  } catch (const OverflowError& e) {
    throw OverflowError(at + ": cross-" + e.what());
  }
  if (p.on_layer) p.on_layer(Stack::cross, int(l), p.trace);
  add(x, p.trace.output, at, kCrossSum, kCrossCause);
  if (!pre_norm) norm(x, x, w.weights, Weight::norm1_w, Weight::norm1_b, at, steps_.cross_norm);
}

std::string Model::where(size_t l, const Pass& p) const {
  return (encoder_decoder() ? std::string(stack_name(p.stack)) + " " : std::string()) + layer_name(l);
}

bool Model::one_row(size_t l, const Pass& p) const {
  return p.row >= 0 && l + 1 == layers(p).size();
}

void Model::keep_row(size_t l, Matrix& x, const Pass& p) const {
  if (!one_row(l, p)) return;
  Matrix row = x.row(p.row);
  x = std::move(row);
}

void Model::observe_attention(size_t l, Pass& p, bool sandwich) const {
  if (!p.parts) return;
  const MultiHeadAttention& attention = layers(p)[l].attention;
  const size_t at = size_t(p.parts->position());
  const Matrix heads = attention.project_heads(p.trace.concat.data() + at * size_t(p.trace.concat.cols()));
  const float* gamma = sandwich ? layers(p)[l].weights.data(Weight::attn_out_norm_w) : nullptr;
  p.parts->add_attention(int(l), heads, attention.output_bias(), p.trace.output.data() + at * size_t(p.trace.output.cols()), gamma,
                         config_.layer_norm_eps);
}

void Model::observe_norm(Pass& p, const Matrix& x, const WeightSet& w, Weight weight, Weight bias) const {
  if (!p.parts) return;
  const float* beta = bias == Weight::count ? nullptr : w.data(bias);
  p.parts->norm(x.data() + size_t(p.parts->position()) * size_t(x.cols()), w.data(weight), beta, config_.layer_norm_eps,
                config_.architecture->norm != Norm::layer_norm);
}

// x += branch, the residual stream's sum, checked.
void Model::add(Matrix& x, const Matrix& branch, const std::string& where, const char* sum, const char* cause) const {
  x += branch;
  check_sum(x, where, sum, cause);
}

// out (n, d) = mlp_out(act(mlp_in(in))), or, gated, mlp_out(act(in·gate) ⊙ mlp_in(in)). The
// activation's output is not checked: |GELU(z)| ≤ |z| for both forms and |SiLU(z)| ≤ |z|, so its
// input's check covers it (tests/cpp/overflow_test.cpp shows the kernels keep finite values
// finite); the gated product is.
void Model::mlp(const LayerWeights& lw, const Matrix& in, Matrix& out, const std::string& where) const {
  const auto& k = kernels::active_kernels();
  const WeightSet& w = lw.weights;
  const size_t n = size_t(in.rows()), d = size_t(config_.hidden_size), ff = size_t(config_.intermediate_size);
  Matrix hidden(n, ff);  // (n, ff)
  const Buffer& w1 = w[Weight::mlp_in_w];
  multiply(n, in.data(), d, w1, w.data(Weight::mlp_in_b), hidden.data(), ff);
  check_fits(hidden.data(), n * ff, [&] { return where + ": " + steps_.mlp_in; }, "its input or weights are too large");
  if (config_.mlp() == Mlp::gated) {
    Matrix gate(n, ff);  // (n, ff)
    const Buffer& wg = w[Weight::mlp_gate_w];
    multiply(n, in.data(), d, wg, nullptr, gate.data(), ff);
    check_fits(gate.data(), n * ff, [&] { return where + ": " + steps_.mlp_gate; }, "its input or weights are too large");
    activate(k, config_.activation, n * ff, gate.data());
    hidden.array() *= gate.array();
    check_fits(hidden.data(), n * ff, [&] { return where + ": the product of " + steps_.mlp_gate + " and " + steps_.mlp_in; },
               "its input or weights are too large");
  } else {
    activate(k, config_.activation, n * ff, hidden.data());
  }
  out.resize(Eigen::Index(n), Eigen::Index(d));
  const Buffer& w2 = w[Weight::mlp_out_w];
  multiply(n, hidden.data(), ff, w2, w.data(Weight::mlp_out_b), out.data(), d);
  check_fits(out.data(), n * d, [&] { return where + ": " + steps_.mlp_out; }, "its input or weights are too large");
}

// The BERT family's block: x = norm1(x + attention(x)); x = norm2(x + mlp(x)). A decoder's block
// (BART, Marian) adds x = norm(x + cross_attention(x)) between the two.
void Model::post_norm_block(size_t l, Matrix& x, Pass& p) const {
  const LayerWeights& w = layers(p)[l];
  const std::string at = where(l, p);
  attend(l, x, p);
  keep_row(l, x, p);
  observe_attention(l, p, false);
  add(x, p.trace.output, at, kAttentionSum, kAttentionCause);
  observe_norm(p, x, w.weights, Weight::norm1_w, Weight::norm1_b);
  norm(x, x, w.weights, Weight::norm1_w, Weight::norm1_b, at, steps_.norm1);
  if (p.stack == Stack::decoder) cross_attend(l, x, p);
  mlp(w, x, p.branch, at);
  if (p.parts) p.parts->add_mlp(int(l), p.branch);
  add(x, p.branch, at, kMlpSum, kMlpCause);
  observe_norm(p, x, w.weights, Weight::norm2_w, Weight::norm2_b);
  norm(x, x, w.weights, Weight::norm2_w, Weight::norm2_b, at, steps_.norm2);
}

// GPT-2's block: x = x + attention(norm1(x)); x = x + mlp(norm2(x)). With `sandwich` (Gemma 3)
// each branch's output is normalised before it is added: x = x + attn_out_norm(attention(norm1(x))),
// and likewise the MLP's with mlp_out_norm. A decoder's block (T5) adds
// x = x + cross_attention(norm(x)) between the two.
void Model::pre_norm_block(size_t l, Matrix& x, Pass& p, bool sandwich) const {
  const LayerWeights& w = layers(p)[l];
  const std::string at = where(l, p);
  norm(x, p.normed, w.weights, Weight::norm1_w, Weight::norm1_b, at, steps_.norm1);
  attend(l, p.normed, p);
  keep_row(l, x, p);
  observe_attention(l, p, sandwich);
  if (sandwich) {
    norm(p.trace.output, p.branch, w.weights, Weight::attn_out_norm_w, Weight::count, at, steps_.attn_out_norm);
    add(x, p.branch, at, kAttentionSum, kAttentionCause);
  } else {
    add(x, p.trace.output, at, kAttentionSum, kAttentionCause);
  }
  if (p.stack == Stack::decoder) cross_attend(l, x, p);
  norm(x, p.normed, w.weights, Weight::norm2_w, Weight::norm2_b, at, steps_.norm2);
  mlp(w, p.normed, p.branch, at);
  if (sandwich) norm(p.branch, p.branch, w.weights, Weight::mlp_out_norm_w, Weight::count, at, steps_.mlp_out_norm);
  if (p.parts) p.parts->add_mlp(int(l), p.branch);
  add(x, p.branch, at, kMlpSum, kMlpCause);
}

// GPT-NeoX's block: both branches read x, x = x + attention(norm1(x)) + mlp(norm2(x)), added in
// that order (transformers adds mlp_output + attn_output + residual: the same sum, rounded apart).
void Model::parallel_block(size_t l, Matrix& x, Pass& p) const {
  const LayerWeights& w = layers(p)[l];
  const std::string at = where(l, p);
  norm(x, p.normed, w.weights, Weight::norm1_w, Weight::norm1_b, at, steps_.norm1);
  attend(l, p.normed, p);
  keep_row(l, x, p);
  norm(x, p.normed, w.weights, Weight::norm2_w, Weight::norm2_b, at, steps_.norm2);
  mlp(w, p.normed, p.branch, at);
  observe_attention(l, p, false);
  if (p.parts) p.parts->add_mlp(int(l), p.branch);
  add(x, p.trace.output, at, kAttentionSum, kAttentionCause);
  add(x, p.branch, at, kMlpSum, kMlpCause);
}

void Model::check_ablation(const std::vector<Ablation>& ablation) const {
  const size_t heads = size_t(config_.attention_layers()) * size_t(config_.num_attention_heads);
  if (!ablation.empty() && ablation.size() != heads) {
    throw std::invalid_argument("ablation has " + std::to_string(ablation.size()) + " entries, expected none or " +
                                (encoder_decoder() ? "(encoder + decoder + cross layers)" : "layers") + " × heads = " +
                                std::to_string(heads));
  }
  for (size_t i = 0; i < ablation.size(); ++i) {
    if (ablation[i] != Ablation::none && ablation[i] != Ablation::zero && ablation[i] != Ablation::mean) {
      throw std::invalid_argument("ablation[" + std::to_string(i) + "] is " + std::to_string(int(ablation[i])) +
                                  ", not 0 (none), 1 (zero) or 2 (mean)");
    }
  }
}

const Ablation* Model::layer_ablation(const std::vector<Ablation>& ablation, Stack stack, size_t l) const {
  if (ablation.empty()) return nullptr;
  const size_t before = stack == Stack::encoder ? 0
                        : stack == Stack::decoder ? size_t(config_.num_hidden_layers)
                                                  : size_t(config_.num_hidden_layers + config_.num_decoder_layers);
  return ablation.data() + (before + l) * size_t(config_.num_attention_heads);
}

void Model::check_decoder(const char* what) const {
  if (!encoder_decoder()) {
    throw std::invalid_argument(std::string(what) + " is an encoder–decoder's, and " + config_.architecture->name + " has one stack of layers");
  }
}

ModelRun Model::run(const std::vector<int32_t>& ids, const LayerHook& on_layer, const std::vector<Ablation>& ablation) const {
  Pass p{.run = nullptr, .on_layer = on_layer, .ablation = ablation, .caches = nullptr};
  return pass(ids, p);
}

ModelRun Model::run_decoder(const std::vector<int32_t>& ids, const Matrix& memory, const LayerHook& on_layer,
                            const std::vector<Ablation>& ablation) const {
  check_decoder("run_decoder");
  check_memory(memory, config_);
  Pass p{.run = nullptr, .on_layer = on_layer, .ablation = ablation, .caches = nullptr, .stack = Stack::decoder, .memory = &memory};
  return pass(ids, p);
}

ModelRun Model::extend(const std::vector<int32_t>& ids, std::vector<KvCache>& caches, const LayerHook& on_layer,
                       const std::vector<Ablation>& ablation, std::vector<KvCache>* memory) const {
  const int position = caches.empty() ? 0 : caches.front().length;
  const int needed = position + int(std::min<size_t>(ids.size(), size_t(kMaxTokens) + 1));
  const Stack stack = written_stack();
  const size_t layers = size_t(config_.layers(stack));
  if (caches.size() != layers) {
    throw std::invalid_argument("caches has " + std::to_string(caches.size()) + " layers, expected " + std::to_string(layers));
  }
  if (encoder_decoder() != (memory != nullptr) || (memory && memory->size() != layers)) {
    throw std::invalid_argument(encoder_decoder() ? "an encoder–decoder's decoder reads the encoder's projected output, one per layer"
                                                  : "a one-stack model reads no encoder's output");
  }
  for (const KvCache& c : caches) {
    if (c.length != position) throw std::invalid_argument("the caches hold different numbers of positions");
    if (needed > c.capacity()) {
      throw LimitError(std::to_string(position) + " cached positions and " + std::to_string(ids.size()) +
                       " new ones are more than the cache holds (" + std::to_string(c.capacity()) + ")");
    }
  }
  Pass p{.run = nullptr, .on_layer = on_layer, .ablation = ablation, .caches = &caches, .stack = stack, .memory_caches = memory,
         .first_position = position};
  ModelRun result = pass(ids, p);
  for (KvCache& c : caches) {
    c.length += int(ids.size());
    std::swap(c.output_sum, c.next_output_sum);
  }
  if (memory) {
    for (KvCache& m : *memory) std::swap(m.output_sum, m.next_output_sum);
  }
  return result;
}

double Model::cache_bytes(int capacity) const {
  const double kv_width = double(config_.num_key_value_heads) * double(config_.head_dim);
  return 2.0 * 4.0 * double(config_.layers(written_stack())) * double(capacity) * kv_width;
}

std::vector<KvCache> Model::make_caches(int capacity) const {
  if (capacity < 1 || capacity > config_.max_tokens()) {
    throw LimitError("a KV cache of " + std::to_string(capacity) + " positions: it must hold from 1 to the model's " +
                     std::to_string(config_.max_tokens()));
  }
  const double bytes = cache_bytes(capacity);
  if (bytes > kMaxCacheBytes) {
    throw LimitError("a KV cache of " + std::to_string(capacity) + " positions needs " + std::to_string(std::llround(bytes / (1 << 20))) +
                     " MiB (layers × positions × key/value heads × head_dim × 2 floats), above the limit of " +
                     std::to_string(std::llround(kMaxCacheBytes / (1 << 20))) + " MiB");
  }
  const Eigen::Index kv_width = Eigen::Index(config_.num_key_value_heads) * config_.head_dim;
  std::vector<KvCache> caches(size_t(config_.layers(written_stack())));
  for (KvCache& c : caches) {
    c.k.resize(capacity, kv_width);
    c.v.resize(capacity, kv_width);
    c.output_sum = Vector::Zero(Eigen::Index(config_.num_attention_heads) * config_.head_dim);
  }
  return caches;
}

std::vector<KvCache> Model::project_memory(const Matrix& memory) const {
  check_decoder("project_memory");
  check_memory(memory, config_);
  std::vector<KvCache> out;
  const std::vector<LayerWeights>& cross = weights_.stacks[size_t(Stack::cross)].layers;
  for (size_t l = 0; l < cross.size(); ++l) {
    try {
      out.push_back(cross[l].attention.project_memory(memory));
    } catch (const OverflowError& e) {
      throw OverflowError("cross layer " + std::to_string(l) + ": " + e.what());
    }
  }
  return out;
}

ModelRun Model::pass(const std::vector<int32_t>& ids, Pass& p) const {
  check_ids(ids, p.first_position);
  check_ablation(p.ablation);
  ModelRun result;
  p.run = &result;
  Matrix x = embed(ids, p.first_position, p.stack);  // (n, d): the residual stream
  layers_from(0, x, p);
  result.hidden = std::move(x);
  return result;
}

void Model::layers_from(size_t first, Matrix& x, Pass& p) const {
  for (size_t l = first; l < layers(p).size(); ++l) {
    if (p.record) p.record->residuals.push_back(x);
    switch (config_.architecture->block) {
      case Block::post_norm: post_norm_block(l, x, p); break;
      case Block::pre_norm: pre_norm_block(l, x, p, false); break;
      case Block::sandwich: pre_norm_block(l, x, p, true); break;
      case Block::parallel: parallel_block(l, x, p); break;
    }
    if (p.parts) p.parts->keep_residual(int(l) + 1, x);
  }
  const WeightSet& w = weights_.stacks[size_t(p.stack)].weights;
  if (!w[Weight::final_norm_w].empty()) {
    observe_norm(p, x, w, Weight::final_norm_w, Weight::final_norm_b);
    norm(x, x, w, Weight::final_norm_w, Weight::final_norm_b, encoder_decoder() ? std::string("the ") + stack_name(p.stack) + "'s final layer"
                                                                                : "the final layer", steps_.final_norm);
  }
  if (p.parts) p.parts->keep_hidden(x);
}

void Model::check_one_stack(const char* what) const {
  if (encoder_decoder()) throw std::invalid_argument(std::string(what) + " is not implemented for an encoder–decoder model yet");
}

ResidualParts Model::explain(const std::vector<int32_t>& ids, int position, const std::vector<Ablation>& ablation) const {
  check_one_stack("direct logit attribution");
  check_ids(ids);
  check_ablation(ablation);
  if (position < 0 || size_t(position) >= ids.size()) {
    throw std::invalid_argument("position must be from 0 to " + std::to_string(ids.size() - 1) + ", got " + std::to_string(position));
  }
  ResidualParts parts(position, config_.num_hidden_layers, config_.num_attention_heads, config_.hidden_size);
  Pass pass{.run = nullptr, .on_layer = {}, .ablation = ablation, .caches = nullptr, .parts = &parts};
  Matrix x = embed(ids, 0);
  parts.set_embeddings(x);
  parts.keep_residual(0, x);
  layers_from(0, x, pass);
  return parts;
}

Matrix Model::embeddings(const std::vector<int32_t>& ids) const {
  check_one_stack("activation patching");
  check_ids(ids);
  return embed(ids, 0);
}

Matrix Model::run_from(int first, Matrix x, const HeadPatch& patch, PassRecord* record, int row) const {
  check_one_stack("activation patching");
  if (first < 0 || first >= config_.num_hidden_layers) {
    throw std::invalid_argument("first must be from 0 to " + std::to_string(config_.num_hidden_layers - 1) + ", got " + std::to_string(first));
  }
  if (x.cols() != config_.hidden_size || x.rows() < 1 || x.rows() > config_.max_tokens()) {
    throw std::invalid_argument("x is not (n, d_model) with 1 ≤ n ≤ " + std::to_string(config_.max_tokens()));
  }
  if (row < -1 || row >= x.rows()) {
    throw std::invalid_argument("row must be -1 (every row) or from 0 to " + std::to_string(x.rows() - 1) + ", got " + std::to_string(row));
  }
  // A patch covers every row, or, in a one-row last layer, that row alone.
  const bool row_patch = row >= 0 && patch.layer == config_.num_hidden_layers - 1 && patch.output && patch.output->rows() == 1;
  if (patch.layer >= 0 && (patch.head < 0 || patch.head >= config_.num_attention_heads || !patch.output ||
                           (patch.output->rows() != x.rows() && !row_patch) ||
                           patch.output->cols() != weights_.stacks[0].layers[size_t(patch.layer)].attention.q_width())) {
    throw std::invalid_argument("the patch is not one head's output over the pass's positions");
  }
  const std::vector<Ablation> none;
  Pass pass{.run = nullptr, .on_layer = {}, .ablation = none, .caches = nullptr, .patch = patch, .record = record, .row = row};
  layers_from(size_t(first), x, pass);
  return x;
}

AttentionTrace Model::layer_trace(Stack stack, int layer, const Matrix& input, const std::vector<Ablation>& ablation,
                                 const Matrix* memory) const {
  if (int(stack) >= config_.stack_count()) {
    throw std::invalid_argument(std::string("stack must be encoder: ") + config_.architecture->name + " has one stack of layers, got " +
                                stack_name(stack));
  }
  const int layers = config_.layers(stack);
  if (layer < 0 || layer >= layers) {
    throw std::invalid_argument("layer must be from 0 to " + std::to_string(layers - 1) + ", got " + std::to_string(layer));
  }
  if (input.rows() > config_.max_tokens()) {
    throw LimitError("input has " + std::to_string(input.rows()) + " rows, above the model's limit of " +
                     std::to_string(config_.max_tokens()) + " tokens");
  }
  if (input.rows() < 1 || input.cols() != config_.hidden_size) {
    throw std::invalid_argument("input is (" + std::to_string(input.rows()) + ", " + std::to_string(input.cols()) +
                                "), expected (n_tokens, d_model = " + std::to_string(config_.hidden_size) + ") with n_tokens ≥ 1");
  }
  if (stack == Stack::cross) {
    if (!memory) throw std::invalid_argument("a cross layer's trace reads the encoder's output: memory is missing");
    check_memory(*memory, config_);
  }
  check_ablation(ablation);
  Pass p{.run = nullptr, .on_layer = {}, .ablation = ablation, .caches = nullptr, .stack = stack};
  const int n = int(input.rows()), keys = stack == Stack::cross ? int(memory->rows()) : n;
  AttentionInput in{.x_q = input.data(), .n_queries = n, .x_kv = stack == Stack::cross ? memory->data() : input.data(), .n_keys = keys,
                    .ablation = layer_ablation(ablation, stack, size_t(layer))};
  if (stack != Stack::cross) in.score_bias = relative_bias(size_t(n), size_t(n), p);
  AttentionTrace trace;
  try {
    weights_.stacks[size_t(stack)].layers[size_t(layer)].attention.forward_into(in, trace);
  } catch (const OverflowError& e) {
    throw OverflowError(where(size_t(layer), p) + ": " + e.what());
  }
  return trace;
}

Matrix Model::head_input(const float* hidden_row) const {
  const ArchitectureSpec& spec = *config_.architecture;
  if (!weights_.has_lm_head) throw std::invalid_argument("this model has no language-model head: " + spec.no_head_message);
  const auto& k = kernels::active_kernels();
  const WeightSet& w = weights_.weights;
  const size_t d = size_t(config_.hidden_size);
  for (size_t i = 0; i < d; ++i) {
    if (!std::isfinite(hidden_row[i])) throw std::invalid_argument("hidden[" + std::to_string(i) + "] is not finite");
  }
  Matrix h = ConstMatrixMap(hidden_row, 1, Eigen::Index(d));  // (1, d)
  if (config_.head_scale != 1) h *= config_.head_scale;  // T5's tied head: d_model^−½
  if (config_.lm_head() == LmHead::transformed) {  // dense, activation, norm
    Matrix t(1, Eigen::Index(d));
    const Buffer& dense = w[Weight::head_dense_w];
    multiply(1, h.data(), d, dense, w.data(Weight::head_dense_b), t.data(), d);
    check_fits(t.data(), d, [] { return std::string("the language-model head's dense layer"); }, "its input or weights are too large");
    activate(k, head_activation(), d, t.data());
    normalize(k, false, t, h, w.data(Weight::head_norm_w), w.data(Weight::head_norm_b), config_.layer_norm_eps, "the language-model head",
              "its LayerNorm");
  }
  return h;
}

const Buffer& Model::unembedding() const {
  return weights_.weights[config_.lm_head() == LmHead::untied ? Weight::lm_head : Weight::word_embeddings];
}

Activation Model::head_activation() const {
  return config_.architecture->head_activation == HeadActivation::gelu_erf ? Activation::gelu_erf : config_.activation;
}

std::vector<float> Model::logits(const float* hidden_row) const {
  const WeightSet& w = weights_.weights;
  const size_t V = size_t(config_.vocab_size);
  const Matrix h = head_input(hidden_row);
  // logits (V) = E (V, d) · h, the embeddings (or an untied head) read in place.
  std::vector<float> out(V);
  table_times(unembedding(), h.data(), out.data());
  if (const float* bias = w.data(Weight::head_bias)) {
    for (size_t i = 0; i < V; ++i) out[i] += bias[i];
  }
  check_fits(out.data(), V, [] { return std::string("the language-model head's logits"); }, "its input or weights are too large");
  if (config_.logit_softcap > 0) {  // cap·tanh(logit/cap): Gemma's final_logit_softcapping
    const float cap = float(config_.logit_softcap);
    for (float& v : out) v = cap * std::tanh(v / cap);
  }
  return out;
}

void Model::check_token(const char* name, int32_t id) const {
  check_in_vocabulary(id, config_.vocab_size, [&] { return std::string(name); });
}

double Model::logit_difference(const float* hidden_row, int32_t token, int32_t against, bool softcap) const {
  check_token("token", token);
  if (against != -1) check_token("against", against);
  const Matrix h = head_input(hidden_row);
  const size_t d = size_t(config_.hidden_size);
  const float* bias = weights_.weights.data(Weight::head_bias);
  std::vector<float> row(d);
  const auto logit = [&](int32_t id) {
    table_row(unembedding(), size_t(id), row.data());
    double sum = 0;
    for (size_t c = 0; c < d; ++c) sum += double(row[c]) * double(h(0, Eigen::Index(c)));
    if (bias) sum += bias[id];
    if (softcap && config_.logit_softcap > 0) sum = config_.logit_softcap * std::tanh(sum / config_.logit_softcap);
    return sum;
  };
  return logit(token) - (against == -1 ? 0.0 : logit(against));
}

std::vector<double> Model::part_logits(const ResidualParts& r, int32_t token, int32_t against) const {
  check_token("token", token);
  if (against != -1) check_token("against", against);
  const Matrix head_in = head_input(r.hidden().data());  // also refuses a model without a head
  const WeightSet& w = weights_.weights;
  const size_t d = size_t(config_.hidden_size);
  ResidualParts read = r;
  MatrixD& parts = read.parts();
  const Eigen::Index count = parts.rows();
  if (config_.lm_head() == LmHead::transformed) {
    // The dense layer is linear: each part through it, its bias to the biases.
    const Matrix in = parts.cast<float>();
    Matrix out(count, Eigen::Index(d));
    multiply(size_t(count), in.data(), d, w[Weight::head_dense_w], nullptr, out.data(), d);
    parts = out.cast<double>();
    for (size_t c = 0; c < d; ++c) parts(read.bias_row(), Eigen::Index(c)) += w.data(Weight::head_dense_b)[c];
    // The activation, frozen at its ratio for the real hidden state: act(z) / z (1/2, its limit, at 0).
    Matrix z(1, Eigen::Index(d));
    multiply(1, r.hidden().data(), d, w[Weight::head_dense_w], w.data(Weight::head_dense_b), z.data(), d);
    Matrix a = z;
    activate(kernels::active_kernels(), head_activation(), d, a.data());
    for (Eigen::Index c = 0; c < Eigen::Index(d); ++c) parts.col(c) *= z(0, c) == 0 ? 0.5 : double(a(0, c)) / double(z(0, c));
    read.norm(a.data(), w.data(Weight::head_norm_w), w.data(Weight::head_norm_b), config_.layer_norm_eps, false);
  }
  Eigen::RowVectorXd direction = Eigen::RowVectorXd::Zero(Eigen::Index(d));
  std::vector<float> row(d);
  table_row(unembedding(), size_t(token), row.data());
  for (size_t c = 0; c < d; ++c) direction[Eigen::Index(c)] = row[c];
  if (against != -1) {
    table_row(unembedding(), size_t(against), row.data());
    for (size_t c = 0; c < d; ++c) direction[Eigen::Index(c)] -= row[c];
  }
  std::vector<double> out = std::vector<double>(size_t(count));
  for (Eigen::Index i = 0; i < count; ++i) out[size_t(i)] = parts.row(i).dot(direction);
  if (const float* bias = w.data(Weight::head_bias)) out.back() += double(bias[token]) - (against == -1 ? 0.0 : double(bias[against]));
  return out;
}

Matrix Model::lens(const ResidualParts& parts) const {
  Matrix rows = parts.residuals();
  const WeightSet& w = weights_.stacks[size_t(Stack::encoder)].weights;
  if (!w[Weight::final_norm_w].empty()) norm(rows, rows, w, Weight::final_norm_w, Weight::final_norm_b, "the logit lens", steps_.final_norm);
  return rows;
}

}  // namespace multihead
