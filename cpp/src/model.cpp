// Model: loading BertModel tensors by name, and the forward pass. Config parsing is config.cpp.
#include "multihead/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "multihead/kernels.h"

namespace multihead {
namespace {

// Reads tensors by BertModel name, checking each shape against the config.
class TensorReader {
 public:
  explicit TensorReader(const SafetensorsFile& file)
      : file_(file), prefix_(!file.contains("embeddings.word_embeddings.weight") && file.contains("bert.embeddings.word_embeddings.weight") ? "bert." : "") {}

  std::vector<float> read(const std::string& name, std::vector<int64_t> shape) const {
    const TensorInfo& t = file_.info(prefix_ + name);
    if (t.shape != shape) {
      throw std::invalid_argument(file_.label() + ": tensor '" + prefix_ + name + "' has shape " + str(t.shape) +
                                  ", expected " + str(shape) + " from config.json");
    }
    std::vector<float> values = file_.read(prefix_ + name);
    for (size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i])) {
        throw std::invalid_argument(file_.label() + ": tensor '" + prefix_ + name + "' value " + std::to_string(i) + " is not finite");
      }
    }
    return values;
  }
  Matrix matrix(const std::string& name, int rows, int cols) const { return ConstMatrixMap(read(name, {rows, cols}).data(), rows, cols); }
  Vector vector(const std::string& name, int size) const {
    const std::vector<float> v = read(name, {size});
    return Eigen::Map<const Vector>(v.data(), size);
  }
  // nn.Linear stores (out, in); the engine's convention is (in, out).
  Matrix linear(const std::string& name, int in, int out) const { return matrix(name + ".weight", out, in).transpose(); }
  std::vector<float> linear_flat(const std::string& name, int in, int out) const {
    const Matrix w = linear(name, in, out);
    return std::vector<float>(w.data(), w.data() + w.size());
  }

 private:
  static std::string str(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
  }
  const SafetensorsFile& file_;
  std::string prefix_;
};

}  // namespace

Model::Model(const ModelConfig& config, const SafetensorsFile& file) : config_(config) {
  check_model_config(config);
  const TensorReader r(file);
  const int d = config.hidden_size, ff = config.intermediate_size;
  word_embeddings_ = r.matrix("embeddings.word_embeddings.weight", config.vocab_size, d);
  position_embeddings_ = r.matrix("embeddings.position_embeddings.weight", config.max_position_embeddings, d);
  token_type0_ = r.matrix("embeddings.token_type_embeddings.weight", config.type_vocab_size, d).row(0);
  ln_gamma_ = r.vector("embeddings.LayerNorm.weight", d);
  ln_beta_ = r.vector("embeddings.LayerNorm.bias", d);
  for (int i = 0; i < config.num_hidden_layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    AttentionWeights w{r.linear_flat(p + "attention.self.query", d, d), r.linear_flat(p + "attention.self.key", d, d),
                       r.linear_flat(p + "attention.self.value", d, d), r.linear_flat(p + "attention.output.dense", d, d),
                       r.read(p + "attention.self.query.bias", {d}), r.read(p + "attention.self.key.bias", {d}),
                       r.read(p + "attention.self.value.bias", {d}), r.read(p + "attention.output.dense.bias", {d})};
    blocks_.push_back(Block{MultiHeadAttention({d, config.num_attention_heads, false}, std::move(w)),
                            r.vector(p + "attention.output.LayerNorm.weight", d), r.vector(p + "attention.output.LayerNorm.bias", d),
                            PackedMatrix(r.linear(p + "intermediate.dense", d, ff)), r.vector(p + "intermediate.dense.bias", ff),
                            PackedMatrix(r.linear(p + "output.dense", ff, d)), r.vector(p + "output.dense.bias", d),
                            r.vector(p + "output.LayerNorm.weight", d), r.vector(p + "output.LayerNorm.bias", d)});
  }
}

namespace {

// Where an overflow happened, for messages: "embeddings", or "layer l" with l counted from 0 as in
// the tensor names (encoder.layer.<l>) and the JS API (result.attention(layer, head)).
std::string layer_name(size_t l) { return "layer " + std::to_string(l); }

std::string short_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

// x (n, d) ← LayerNorm(x), where x has just been formed by `sum` (the embeddings, or a residual
// add). Checks x first: finite, and small enough that the kernel's variance cannot overflow. With
// |x| ≤ M the kernel's deviations are at most 2M and their squares sum to at most 4·d·M², so
// M ≤ √(FLT_MAX / 8d) keeps that sum within half of FLT_MAX, room for rounding. Past it the
// variance can become infinity, and then the output silently equals beta, which no check of the
// output can tell from a real result. The bound is sufficient, not necessary (values of 1e19 that
// differ by little would still fit), but it is far above any real activation (2.3e17 at d = 768),
// and it costs nothing: it comes from the same scan as the finiteness check. Recomputing the
// variance here to test it exactly would double the LayerNorm's passes. Then checks the output,
// which a huge gamma or beta can still overflow.
void add_norm(const kernels::KernelSet& k, Matrix& x, const Vector& gamma, const Vector& beta, float eps,
              const std::string& where, const char* sum, const char* sum_cause, const char* norm) {
  const size_t n = size_t(x.rows()), d = size_t(x.cols());
  const float largest = largest_magnitude(x.data(), n * d);
  if (!std::isfinite(largest)) throw OverflowError(where + ": " + sum + " overflowed float32 (" + sum_cause + ")");
  const double limit = std::sqrt(double(std::numeric_limits<float>::max()) / (8.0 * double(d)));
  if (largest > limit) {
    throw OverflowError(where + ": the variance in " + norm + " overflowed float32 (its input reaches " +
                        short_number(largest) + "; with hidden_size = " + std::to_string(d) +
                        " the variance is sure to fit only below " + short_number(limit) + ")");
  }
  k.layer_norm(n, d, x.data(), d, gamma.data(), beta.data(), eps, x.data(), d);
  check_fits(x.data(), n * d, [&] { return where + ": " + norm; }, "its weight or bias is too large");
}

}  // namespace

ModelTrace Model::run(const std::vector<int32_t>& ids) const {
  const int n = int(std::min<size_t>(ids.size(), size_t(kMaxTokens) + 1));
  if (n < 1) throw std::invalid_argument("ids must hold at least 1 token, got 0");
  if (n > config_.max_position_embeddings) {
    throw LimitError("ids has " + std::to_string(ids.size()) + " tokens, above max_position_embeddings = " +
                            std::to_string(config_.max_position_embeddings));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= config_.vocab_size) {
      throw std::invalid_argument("ids[" + std::to_string(i) + "] is " + std::to_string(ids[i]) + ", outside the vocabulary 0 to " +
                                  std::to_string(config_.vocab_size - 1));
    }
  }
  const auto& k = kernels::active_kernels();
  const int d = config_.hidden_size, ff = config_.intermediate_size;
  const float eps = config_.layer_norm_eps;
  ModelTrace trace;

  // Every step below that can overflow float32 is checked right after it (see add_norm). GELU is
  // not: |GELU(z)| ≤ |z|, so its input's check covers it (tests/cpp/overflow_test.cpp shows both
  // kernels keep finite values finite).
  Matrix x(n, d);  // (n, d)
  for (int i = 0; i < n; ++i) x.row(i) = word_embeddings_.row(ids[i]) + position_embeddings_.row(i) + token_type0_;
  add_norm(k, x, ln_gamma_, ln_beta_, eps, "embeddings", "the sum of the word, position and token type embeddings",
           "the embeddings are too large", "embeddings.LayerNorm");

  Matrix mlp(n, ff);  // (n, ff)
  Matrix out(n, d);   // (n, d)
  for (size_t l = 0; l < blocks_.size(); ++l) {
    const Block& b = blocks_[l];
    const std::string where = layer_name(l);
    trace.inputs.push_back(x);
    try {
      trace.layers.push_back(b.attention.forward(x));
    } catch (const OverflowError& e) {
      throw OverflowError(where + ": " + e.what());
    }
    x += trace.layers.back().output;  // residual
    add_norm(k, x, b.ln1_gamma, b.ln1_beta, eps, where, "the residual sum of the layer's input and the attention output",
             "the attention output is too large", "attention.output.LayerNorm");
    k.gemm(n, ff, d, x.data(), d, b.w1.data.data(), b.w1.panel_stride(), b.b1.data(), mlp.data(), ff);
    check_fits(mlp.data(), size_t(n) * ff, [&] { return where + ": intermediate.dense"; }, "its input or weights are too large");
    k.gelu(size_t(n) * ff, mlp.data(), mlp.data());
    k.gemm(n, d, ff, mlp.data(), ff, b.w2.data.data(), b.w2.panel_stride(), b.b2.data(), out.data(), d);
    check_fits(out.data(), size_t(n) * d, [&] { return where + ": output.dense"; }, "its input or weights are too large");
    x += out;  // residual
    add_norm(k, x, b.ln2_gamma, b.ln2_beta, eps, where, "the residual sum of the MLP's input and output",
             "the MLP output is too large", "output.LayerNorm");
  }
  trace.hidden = std::move(x);
  return trace;
}

}  // namespace multihead
