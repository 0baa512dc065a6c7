// Model: loading BertModel tensors by name, and the forward pass. Config parsing is config.cpp.
#include "multihead/model.h"

#include <algorithm>
#include <cmath>
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

ModelTrace Model::run(const std::vector<int32_t>& ids) const {
  const int n = int(std::min<size_t>(ids.size(), size_t(kMaxTokens) + 1));
  if (n < 1) throw std::invalid_argument("ids must hold at least 1 token, got 0");
  if (n > config_.max_position_embeddings) {
    throw std::length_error("ids has " + std::to_string(ids.size()) + " tokens, above max_position_embeddings = " +
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

  Matrix x(n, d);  // (n, d)
  for (int i = 0; i < n; ++i) x.row(i) = word_embeddings_.row(ids[i]) + position_embeddings_.row(i) + token_type0_;
  k.layer_norm(n, d, x.data(), d, ln_gamma_.data(), ln_beta_.data(), eps, x.data(), d);

  Matrix mlp(n, ff);  // (n, ff)
  Matrix out(n, d);   // (n, d)
  for (const Block& b : blocks_) {
    trace.inputs.push_back(x);
    trace.layers.push_back(b.attention.forward(x));
    x += trace.layers.back().output;  // residual
    k.layer_norm(n, d, x.data(), d, b.ln1_gamma.data(), b.ln1_beta.data(), eps, x.data(), d);
    k.gemm(n, ff, d, x.data(), d, b.w1.data.data(), b.w1.panel_stride(), b.b1.data(), mlp.data(), ff);
    k.gelu(size_t(n) * ff, mlp.data(), mlp.data());
    k.gemm(n, d, ff, mlp.data(), ff, b.w2.data.data(), b.w2.panel_stride(), b.b2.data(), out.data(), d);
    x += out;  // residual
    k.layer_norm(n, d, x.data(), d, b.ln2_gamma.data(), b.ln2_beta.data(), eps, x.data(), d);
  }
  trace.hidden = std::move(x);
  return trace;
}

}  // namespace multihead
