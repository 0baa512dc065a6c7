// Model: a small random BERT written as safetensors, run by the engine and by a float64
// reference written from the architecture's definition; config and weight errors.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "multihead/model.h"
#include "reference.h"
#include "safetensors_writer.h"

namespace multihead::testing {
namespace {

const ModelConfig kConfig{/*vocab*/ 50, /*d*/ 16, /*layers*/ 2, /*heads*/ 4, /*ff*/ 24, /*positions*/ 12, /*types*/ 2, 1e-12f};

MatrixD tensor(const std::map<std::string, TestTensor>& t, const std::string& name) {
  const TestTensor& x = t.at(name);
  return to_double(x.values, size_t(x.shape[0]), x.shape.size() > 1 ? size_t(x.shape[1]) : 1);
}

VectorD row_vector(const std::map<std::string, TestTensor>& t, const std::string& name) {
  return tensor(t, name).transpose();
}

MatrixD layer_norm(const MatrixD& x, const VectorD& gamma, const VectorD& beta, double eps) {
  MatrixD y(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const double mean = x.row(i).mean();
    const double var = (x.row(i).array() - mean).square().mean();
    y.row(i) = ((x.row(i).array() - mean) / std::sqrt(var + eps)).matrix().cwiseProduct(gamma) + beta;
  }
  return y;
}

struct ReferenceBert {
  std::vector<std::vector<MatrixD>> attention;  // [layer][head], (n, n)
  std::vector<MatrixD> inputs;                  // [layer], (n, d)
  MatrixD hidden;                               // (n, d)
};

// BertModel's forward in float64: each layer's input and attention weights (per head), and the output.
ReferenceBert reference_bert(const std::map<std::string, TestTensor>& t, const ModelConfig& c, const std::vector<int32_t>& ids) {
  const int n = int(ids.size()), d = c.hidden_size, h = c.num_attention_heads, dh = d / h;
  const MatrixD word = tensor(t, "embeddings.word_embeddings.weight"), pos = tensor(t, "embeddings.position_embeddings.weight");
  const MatrixD type = tensor(t, "embeddings.token_type_embeddings.weight");
  MatrixD x(n, d);
  for (int i = 0; i < n; ++i) x.row(i) = word.row(ids[i]) + pos.row(i) + type.row(0);
  x = layer_norm(x, row_vector(t, "embeddings.LayerNorm.weight"), row_vector(t, "embeddings.LayerNorm.bias"), c.layer_norm_eps);
  const auto linear = [&](const MatrixD& in, const std::string& name) {
    MatrixD y = in * tensor(t, name + ".weight").transpose();
    y.rowwise() += row_vector(t, name + ".bias");
    return y;
  };
  std::vector<std::vector<MatrixD>> attention;
  std::vector<MatrixD> inputs;
  for (int l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    inputs.push_back(x);
    const MatrixD q = linear(x, p + "attention.self.query"), k = linear(x, p + "attention.self.key"), v = linear(x, p + "attention.self.value");
    MatrixD context(n, d);
    attention.emplace_back();
    for (int head = 0; head < h; ++head) {
      MatrixD s = q.middleCols(head * dh, dh) * k.middleCols(head * dh, dh).transpose() / std::sqrt(double(dh));
      for (int i = 0; i < n; ++i) {
        s.row(i) = (s.row(i).array() - s.row(i).maxCoeff()).exp();
        s.row(i) /= s.row(i).sum();
      }
      context.middleCols(head * dh, dh) = s * v.middleCols(head * dh, dh);
      attention.back().push_back(s);
    }
    x = layer_norm(x + linear(context, p + "attention.output.dense"), row_vector(t, p + "attention.output.LayerNorm.weight"),
                   row_vector(t, p + "attention.output.LayerNorm.bias"), c.layer_norm_eps);
    MatrixD mlp = linear(x, p + "intermediate.dense");
    mlp = mlp.unaryExpr([](double z) { return 0.5 * z * (1 + std::erf(z / std::sqrt(2.0))); });
    x = layer_norm(x + linear(mlp, p + "output.dense"), row_vector(t, p + "output.LayerNorm.weight"),
                   row_vector(t, p + "output.LayerNorm.bias"), c.layer_norm_eps);
  }
  return {attention, inputs, x};
}

template <class E, class F>
void expect_error(F&& call, const std::string& part) {
  try {
    call();
    FAIL() << "no exception; expected one containing: " << part;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Model, MatchesTheFloat64ReferenceLayerByLayer) {
  const auto tensors = bert_tensors_for(kConfig);
  const Model model(kConfig, SafetensorsFile(safetensors_bytes(tensors)));
  for (const std::vector<int32_t>& ids : {std::vector<int32_t>{2, 17, 5, 49, 3}, std::vector<int32_t>{7},
                                          std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0}}) {
    const ModelTrace trace = model.run(ids);
    const auto [attention, inputs, hidden] = reference_bert(tensors, kConfig, ids);
    const int n = int(ids.size());
    ASSERT_EQ(trace.layers.size(), 2u);
    ASSERT_EQ(trace.inputs.size(), 2u);
    for (int l = 0; l < 2; ++l) {
      EXPECT_LT(max_abs_diff(trace.inputs[l], inputs[l]), 1e-4) << "layer " << l << " input, n=" << n;
      for (int h = 0; h < 4; ++h) EXPECT_LT(max_abs_diff(head_matrix(trace.layers[l].weights, h, n), attention[l][h]), 1e-5);
    }
    EXPECT_LT(max_abs_diff(trace.hidden, hidden), 1e-4) << "n=" << n;
  }
}

TEST(Model, AcceptsTheBertPrefixOfBertForMaskedLMCheckpoints) {
  const auto plain = bert_tensors_for(kConfig), prefixed = bert_tensors_for(kConfig, "bert.");
  const std::vector<int32_t> ids{2, 9, 3};
  const Model a(kConfig, SafetensorsFile(safetensors_bytes(plain))), b(kConfig, SafetensorsFile(safetensors_bytes(prefixed)));
  EXPECT_EQ(max_abs_diff(a.run(ids).hidden, b.run(ids).hidden), 0.0);
}

TEST(Model, ParsesAHuggingFaceBertConfig) {
  const ModelConfig c = parse_bert_config(R"({"model_type": "bert", "vocab_size": 50, "hidden_size": 16,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 24, "hidden_act": "gelu",
      "max_position_embeddings": 12, "type_vocab_size": 2, "layer_norm_eps": 1e-12, "architectures": ["BertModel"]})");
  EXPECT_EQ(c.vocab_size, 50);
  EXPECT_EQ(c.intermediate_size, 24);
  EXPECT_EQ(c.max_position_embeddings, 12);
  EXPECT_FLOAT_EQ(c.layer_norm_eps, 1e-12f);
}

TEST(ModelErrors, BadConfigsNameTheField) {
  expect_error<std::invalid_argument>([] { parse_bert_config("{"); }, "config.json: not valid JSON");
  expect_error<std::invalid_argument>([] { parse_bert_config(R"({"model_type": "gpt2"})"); }, "model_type must be \"bert\", got \"gpt2\"");
  const std::string base = R"("model_type": "bert", "vocab_size": 50, "num_hidden_layers": 2, "intermediate_size": 24, "max_position_embeddings": 12)";
  expect_error<std::invalid_argument>([&] { parse_bert_config("{" + base + R"(, "hidden_size": 10, "num_attention_heads": 4})"); },
                                      "config.json: hidden_size (10) must be divisible by num_attention_heads (4)");
  expect_error<std::invalid_argument>([&] { parse_bert_config("{" + base + R"(, "num_attention_heads": 4})"); }, "config.json: hidden_size is missing");
  expect_error<std::invalid_argument>([&] { parse_bert_config("{" + base + R"(, "hidden_size": "16", "num_attention_heads": 4})"); },
                                      "hidden_size must be an integer, got \"16\"");
  expect_error<std::invalid_argument>([&] { parse_bert_config("{" + base + R"(, "hidden_size": 16, "num_attention_heads": 4, "hidden_act": "relu"})"); },
                                      "hidden_act must be \"gelu\", got \"relu\"");
}

TEST(ModelErrors, AMissingTensorOrWrongShapeIsNamed) {
  auto tensors = bert_tensors_for(kConfig);
  tensors.erase("encoder.layer.1.intermediate.dense.bias");
  expect_error<std::invalid_argument>([&] { Model(kConfig, SafetensorsFile(safetensors_bytes(tensors))); },
                                      "has no tensor 'encoder.layer.1.intermediate.dense.bias'");
  tensors = bert_tensors_for(kConfig);
  tensors["encoder.layer.0.attention.self.key.weight"].shape = {8, 32};
  expect_error<std::invalid_argument>([&] { Model(kConfig, SafetensorsFile(safetensors_bytes(tensors))); },
                                      "tensor 'encoder.layer.0.attention.self.key.weight' has shape [8, 32], expected [16, 16]");
  tensors = bert_tensors_for(kConfig);
  tensors["embeddings.LayerNorm.bias"].values[3] = NAN;
  expect_error<std::invalid_argument>([&] { Model(kConfig, SafetensorsFile(safetensors_bytes(tensors))); },
                                      "tensor 'embeddings.LayerNorm.bias' value 3 is not finite");
}

TEST(ModelErrors, BadIdsAreRefusedBeforeComputing) {
  const Model model(kConfig, SafetensorsFile(safetensors_bytes(bert_tensors_for(kConfig))));
  expect_error<std::invalid_argument>([&] { model.run({}); }, "at least 1 token, got 0");
  expect_error<std::invalid_argument>([&] { model.run({2, 50, 3}); }, "ids[1] is 50, outside the vocabulary 0 to 49");
  expect_error<std::length_error>([&] { model.run(std::vector<int32_t>(13, 1)); }, "13 tokens, above max_position_embeddings = 12");
}

}  // namespace
}  // namespace multihead::testing
