// Test helper: the forward pass of each architecture in float64, written from the Hugging Face
// definitions (modeling_bert.py, modeling_distilbert.py, modeling_roberta.py, modeling_gpt2.py)
// with plain Eigen, over tensors looked up by their Hugging Face names. It shares no code with
// the engine: not its architecture tables, not its kernels.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "reference.h"
#include "safetensors_writer.h"

namespace multihead::testing {

struct ReferenceModel {
  std::vector<std::vector<MatrixD>> attention;  // [layer][head], (n, n)
  std::vector<MatrixD> inputs;                  // [layer], (n, d): what attention reads
  MatrixD hidden;                               // (n, d)
  MatrixD logits;                               // (n, V), when a head was asked for
};

// The names one architecture gives its modules ({} is the layer number).
struct ReferenceNames {
  std::string word, position, token_type, embeddings_norm;  // token_type, embeddings_norm may be ""
  std::string q, k, v, o, norm1, fc1, fc2, norm2;           // Linear / LayerNorm modules in a layer
  std::string head_dense, head_norm, head_bias;              // "" without an LM head
  std::string norm_weight = "weight", norm_bias = "bias";
};

inline ReferenceNames bert_names(const std::string& prefix) {
  const std::string l = prefix + "encoder.layer.{}.";
  return {prefix + "embeddings.word_embeddings.weight", prefix + "embeddings.position_embeddings.weight",
          prefix + "embeddings.token_type_embeddings.weight", prefix + "embeddings.LayerNorm",
          l + "attention.self.query", l + "attention.self.key", l + "attention.self.value", l + "attention.output.dense",
          l + "attention.output.LayerNorm", l + "intermediate.dense", l + "output.dense", l + "output.LayerNorm", "", "", ""};
}

inline ReferenceNames distilbert_names(const std::string& prefix) {
  const std::string l = prefix + "transformer.layer.{}.";
  return {prefix + "embeddings.word_embeddings.weight", prefix + "embeddings.position_embeddings.weight", "",
          prefix + "embeddings.LayerNorm", l + "attention.q_lin", l + "attention.k_lin", l + "attention.v_lin",
          l + "attention.out_lin", l + "sa_layer_norm", l + "ffn.lin1", l + "ffn.lin2", l + "output_layer_norm", "", "", ""};
}

inline std::string at_layer(std::string name, int l) {
  const size_t hole = name.find("{}");
  if (hole != std::string::npos) name.replace(hole, 2, std::to_string(l));
  return name;
}

class Reference {
 public:
  explicit Reference(const std::map<std::string, TestTensor>& t) : t_(t) {}

  MatrixD matrix(const std::string& name) const {
    const TestTensor& x = t_.at(name);
    return to_double(x.values, size_t(x.shape[0]), x.shape.size() > 1 ? size_t(x.shape[1]) : 1);
  }
  VectorD vector(const std::string& name) const { return matrix(name).transpose(); }

  // nn.Linear: y = x·Wᵀ + b, W (out, in).
  MatrixD linear(const MatrixD& x, const std::string& name) const {
    MatrixD y = x * matrix(name + ".weight").transpose();
    y.rowwise() += vector(name + ".bias");
    return y;
  }
  // GPT-2's Conv1D: y = x·W + b, W (in, out).
  MatrixD conv1d(const MatrixD& x, const std::string& name) const {
    MatrixD y = x * matrix(name + ".weight");
    y.rowwise() += vector(name + ".bias");
    return y;
  }
  MatrixD layer_norm(const MatrixD& x, const std::string& name, double eps, const ReferenceNames& n) const {
    const VectorD gamma = vector(name + "." + n.norm_weight), beta = vector(name + "." + n.norm_bias);
    MatrixD y(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      const double mean = x.row(i).mean();
      const double var = (x.row(i).array() - mean).square().mean();
      y.row(i) = ((x.row(i).array() - mean) / std::sqrt(var + eps)).matrix().cwiseProduct(gamma) + beta;
    }
    return y;
  }
  MatrixD layer_norm(const MatrixD& x, const std::string& name, double eps) const { return layer_norm(x, name, eps, ReferenceNames{}); }

  static MatrixD gelu_erf(MatrixD x) {
    return x.unaryExpr([](double z) { return 0.5 * z * (1 + std::erf(z / std::sqrt(2.0))); });
  }
  static MatrixD gelu_tanh(MatrixD x) {
    return x.unaryExpr([](double z) { return 0.5 * z * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (z + 0.044715 * z * z * z))); });
  }

  // Multi-head attention on q, k, v (n, d): per-head weights, and the concatenated head outputs.
  static MatrixD attend(const MatrixD& q, const MatrixD& k, const MatrixD& v, int heads, bool causal,
                        std::vector<MatrixD>& weights) {
    const Eigen::Index n = q.rows(), d = q.cols(), dh = d / heads;
    MatrixD context(n, d);
    for (int h = 0; h < heads; ++h) {
      MatrixD s = q.middleCols(h * dh, dh) * k.middleCols(h * dh, dh).transpose() / std::sqrt(double(dh));
      for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index j = i + 1; causal && j < n; ++j) s(i, j) = -INFINITY;
        s.row(i) = (s.row(i).array() - s.row(i).maxCoeff()).exp();
        s.row(i) /= s.row(i).sum();
      }
      context.middleCols(h * dh, dh) = s * v.middleCols(h * dh, dh);
      weights.push_back(s);
    }
    return context;
  }

  // BertModel, RobertaModel and DistilBertModel (post-LN); positions start at `offset`; `tanh`
  // selects gelu_new in the MLP; the head (if named) uses `head_tanh`.
  ReferenceModel post_ln(const ReferenceNames& n, const std::vector<int32_t>& ids, int layers, int heads, double eps, int offset,
                         bool tanh, bool head_tanh) const {
    ReferenceModel r;
    const MatrixD word = matrix(n.word), pos = matrix(n.position);
    MatrixD x(Eigen::Index(ids.size()), word.cols());
    for (size_t i = 0; i < ids.size(); ++i) {
      x.row(Eigen::Index(i)) = word.row(ids[i]) + pos.row(offset + Eigen::Index(i));
      if (!n.token_type.empty()) x.row(Eigen::Index(i)) += matrix(n.token_type).row(0);
    }
    x = layer_norm(x, n.embeddings_norm, eps, n);
    for (int l = 0; l < layers; ++l) {
      r.inputs.push_back(x);
      r.attention.emplace_back();
      const MatrixD context = attend(linear(x, at_layer(n.q, l)), linear(x, at_layer(n.k, l)), linear(x, at_layer(n.v, l)), heads,
                                     false, r.attention.back());
      x = layer_norm(x + linear(context, at_layer(n.o, l)), at_layer(n.norm1, l), eps, n);
      const MatrixD mid = linear(x, at_layer(n.fc1, l));
      x = layer_norm(x + linear(tanh ? gelu_tanh(mid) : gelu_erf(mid), at_layer(n.fc2, l)), at_layer(n.norm2, l), eps, n);
    }
    r.hidden = x;
    if (!n.head_dense.empty()) {
      const MatrixD dense = linear(x, n.head_dense);
      const MatrixD t = layer_norm(head_tanh ? gelu_tanh(dense) : gelu_erf(dense), n.head_norm, eps, n);
      r.logits = t * word.transpose();
      r.logits.rowwise() += vector(n.head_bias);
    }
    return r;
  }

  // GPT2LMHeadModel: pre-LN blocks, causal attention from the fused c_attn, ln_f, logits = h·wteᵀ.
  ReferenceModel gpt2(const std::string& prefix, const std::vector<int32_t>& ids, int layers, int heads, double eps) const {
    ReferenceModel r;
    const MatrixD wte = matrix(prefix + "wte.weight"), wpe = matrix(prefix + "wpe.weight");
    const Eigen::Index n = Eigen::Index(ids.size()), d = wte.cols();
    MatrixD x(n, d);
    for (Eigen::Index i = 0; i < n; ++i) x.row(i) = wte.row(ids[size_t(i)]) + wpe.row(i);
    for (int l = 0; l < layers; ++l) {
      const std::string p = prefix + "h." + std::to_string(l) + ".";
      const MatrixD a = layer_norm(x, p + "ln_1", eps);
      r.inputs.push_back(a);
      const MatrixD qkv = conv1d(a, p + "attn.c_attn");
      r.attention.emplace_back();
      const MatrixD context = attend(qkv.leftCols(d), qkv.middleCols(d, d), qkv.rightCols(d), heads, true, r.attention.back());
      x += conv1d(context, p + "attn.c_proj");
      x += conv1d(gelu_tanh(conv1d(layer_norm(x, p + "ln_2", eps), p + "mlp.c_fc")), p + "mlp.c_proj");
    }
    r.hidden = layer_norm(x, prefix + "ln_f", eps);
    r.logits = r.hidden * wte.transpose();
    return r;
  }

 private:
  const std::map<std::string, TestTensor>& t_;
};

}  // namespace multihead::testing
