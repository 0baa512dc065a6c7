// Overflow (issue 11, defect 6): finite inputs and weights whose intermediates pass float32's
// range raise OverflowError naming the step, in the layer and in the model, instead of returning
// weights that sum to 0 or NaN; large values that stay in range still give rows summing to 1.
// These run natively and against both WASM builds, so the SIMD and scalar kernels must agree.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "multihead/model.h"
#include "model_run.h"
#include "reference.h"
#include "safetensors_writer.h"

namespace multihead::testing {
namespace {

constexpr float kHuge = 3e38f;  // finite; twice it is not
const std::string kAttentionCause = " overflowed float32 (the input or the weights are too large)";

// The example: L = createAttention({ dModel: 8, numHeads: 2, seed: 42 }), x of 24 values.
const AttentionConfig kConfig = multi_head_config(8, 2, false);

std::vector<float> example_x(float scale = 1.0f) {
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(double(i))) * scale;
  return x;
}

// The message of the OverflowError `call` throws, or a note that it threw none.
template <class F>
std::string overflow_message(F&& call) {
  try {
    call();
  } catch (const OverflowError& e) {
    return e.what();
  }
  return "(no OverflowError)";
}

// Every entry point of the layer gives the same error.
void expect_layer_error(const MultiHeadAttention& layer, const std::vector<float>& x, int n, const std::string& message,
                        const std::vector<uint8_t>& mask = {}) {
  EXPECT_EQ(overflow_message([&] { layer.forward(x, n, mask); }), message);
  EXPECT_EQ(overflow_message([&] { layer.forward_output(x, n, mask); }), message);
  AttentionTrace reused;
  EXPECT_EQ(overflow_message([&] { layer.forward_into(x, n, mask, reused); }), message);
}

void expect_rows_sum_to_one(const AttentionTrace& t) {
  const size_t n = size_t(t.n_queries);  // self-attention: n_q = n_k
  for (int h = 0; h < t.n_heads; ++h) {
    for (size_t i = 0; i < n; ++i) {
      double sum = 0;
      for (size_t j = 0; j < n; ++j) {
        const float w = t.weights[(h * n + i) * n + j];
        ASSERT_TRUE(std::isfinite(w)) << "head " << h << " row " << i;
        sum += w;
      }
      EXPECT_NEAR(sum, 1.0, 1e-5) << "head " << h << " row " << i;
    }
  }
  for (float v : std::vector<float>(t.output.data(), t.output.data() + t.output.size())) ASSERT_TRUE(std::isfinite(v));
}

TEST(AttentionOverflow, WeightsOf3e38OverflowTheQueries) {
  AttentionWeights w = random_attention_weights(kConfig, 42);
  for (auto* m : {&w.wq, &w.wk, &w.wv, &w.wo}) m->assign(64, kHuge);
  const MultiHeadAttention layer(kConfig, w);
  expect_layer_error(layer, example_x(), 3, "attention: the queries of head 0" + kAttentionCause);
}

TEST(AttentionOverflow, InputScaledBy1e20OverflowsTheScores) {
  // Q and K reach about 1e20, finite; their products do not fit.
  const MultiHeadAttention layer(kConfig, random_attention_weights(kConfig, 42));
  expect_layer_error(layer, example_x(1e20f), 3, "attention: the scores of head 0" + kAttentionCause);
  const AttentionConfig causal_config = multi_head_config(8, 2, true);
  const MultiHeadAttention causal(causal_config, random_attention_weights(causal_config, 42));
  expect_layer_error(causal, example_x(1e20f), 3, "attention: the scores of head 0" + kAttentionCause);
}

TEST(AttentionOverflow, ScoresOverflowingToMinusInfinityAreNotTakenForHiddenKeys) {
  // Every score is -1e40: before the fix each row's weights were all 0 (summing to 0, not 1).
  const AttentionConfig one = multi_head_config(1, 1, false);
  const MultiHeadAttention layer(one, AttentionWeights{{1e20f}, {-1e20f}, {1}, {1}, {0}, {0}, {0}, {0}});
  expect_layer_error(layer, {1, 1, 1}, 3, "attention: the scores of head 0" + kAttentionCause);
  expect_layer_error(layer, {1, 1, 1}, 3, "attention: the scores of head 0" + kAttentionCause, {1, 0, 1});
}

TEST(AttentionOverflow, TheValuesAndTheOutputProjectionAreNamed) {
  // dModel 2, 2 heads, x all ones: every product is known, so what overflows does not hang on
  // random values. Column 1 of W_v (head 1) holds 3e38 twice: V = 6e38.
  const AttentionConfig c = multi_head_config(2, 2, false);
  const std::vector<float> ones(6, 1.0f), zero(2, 0.0f), identity{1, 0, 0, 1};
  const AttentionWeights values{identity, identity, {0, kHuge, 0, kHuge}, identity, zero, zero, zero, zero};
  expect_layer_error(MultiHeadAttention(c, values), ones, 3, "attention: the values of head 1" + kAttentionCause);
  // Each head's output is 1 (its weights average values of 1); W_o and b_o of 3e38 give 6e38.
  const AttentionWeights out{identity, identity, identity, std::vector<float>(4, kHuge), zero, zero, zero,
                             std::vector<float>(2, kHuge)};
  expect_layer_error(MultiHeadAttention(c, out), ones, 3, "attention: the output projection" + kAttentionCause);
}

TEST(AttentionOverflow, TheLayerWorksNormallyAfterAnOverflow) {
  const MultiHeadAttention layer(kConfig, random_attention_weights(kConfig, 42));
  const AttentionTrace before = layer.forward(example_x(), 3);
  AttentionTrace reused;
  EXPECT_THROW(layer.forward_into(example_x(1e20f), 3, {}, reused), OverflowError);
  layer.forward_into(example_x(), 3, {}, reused);
  EXPECT_EQ(max_abs_diff(reused.output, before.output), 0.0);
}

TEST(AttentionOverflow, LargeValuesThatFitStillGiveRowsSummingTo1) {
  // Scores near 1e17 and near -1e17: far from float32's limit, yet exp would overflow without
  // the row maximum subtracted first.
  const MultiHeadAttention layer(kConfig, random_attention_weights(kConfig, 42));
  expect_rows_sum_to_one(layer.forward(example_x(1e8f), 3));
  // Weights of 1e18 with x of 1e-2: Q and K near 1e16, scores near 1e32.
  AttentionWeights w = random_attention_weights(kConfig, 42);
  for (auto* m : {&w.wq, &w.wk}) for (float& v : *m) v *= 1e18f;
  for (bool causal : {false, true}) {
    const AttentionConfig c = multi_head_config(8, 2, causal);
    expect_rows_sum_to_one(MultiHeadAttention(c, w).forward(example_x(1e-2f), 3));
  }
}

TEST(AttentionOverflow, LargestMagnitudeSeesInfinityAndNaNAnywhere) {
  // 37 values: the vectorised body and its tail.
  for (size_t at : {size_t{0}, size_t{15}, size_t{36}}) {
    for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), std::nanf("")}) {
      std::vector<float> v(37, -2.5f);
      v[at] = bad;
      EXPECT_FALSE(std::isfinite(largest_magnitude(v.data(), v.size()))) << at;
    }
  }
  std::vector<float> v(37, 1.0f);
  v[20] = -std::numeric_limits<float>::max();
  EXPECT_EQ(largest_magnitude(v.data(), v.size()), std::numeric_limits<float>::max());
  EXPECT_EQ(largest_magnitude(v.data(), 0), 0.0f);
}

TEST(AttentionOverflow, GeluKeepsFiniteValuesFinite) {
  // The model does not check GELU's output: |GELU(z)| ≤ |z|, so finite in is finite out.
  const float max = std::numeric_limits<float>::max();
  const std::vector<float> z{max, -max, kHuge, -kHuge, 1e20f, -1e20f, 1e5f};
  for (const kernels::KernelSet* k : {&kernels::scalar_kernels(), &kernels::active_kernels()}) {
    for (const kernels::GeluFn gelu : {k->gelu, k->gelu_tanh}) {
      std::vector<float> y(z.size());
      gelu(z.size(), z.data(), y.data());
      for (size_t i = 0; i < z.size(); ++i) {
        EXPECT_TRUE(std::isfinite(y[i])) << k->name << " GELU(" << z[i] << ") = " << y[i];
        EXPECT_EQ(y[i], z[i] > 0 ? z[i] : 0.0f) << k->name << " GELU(" << z[i] << ")";
      }
    }
  }
}

// A small BertModel (d 8, 2 heads, 2 layers); its tensors come from bert_tensors_for(kModel).
const ModelConfig kModel = parse_model_config(bert_config_json({/*vocab*/ 12, /*d*/ 8, /*layers*/ 2, /*ff*/ 12, /*positions*/ 10, /*types*/ 2},
                                                                /*heads*/ 2));


const std::vector<int32_t> kIds{2, 5, 6, 7, 3};

std::string model_error(const std::map<std::string, TestTensor>& tensors) {
  const Model model(kModel, SafetensorsFile(safetensors_bytes(tensors)));
  return overflow_message([&] { model.run(kIds); });
}

void fill(std::map<std::string, TestTensor>& t, const std::string& name, float value) {
  for (float& v : t.at(name).values) v = value;
}

TEST(ModelOverflow, HugeEmbeddingsOverflowTheirSum) {
  auto t = bert_tensors_for(kModel);
  fill(t, "embeddings.word_embeddings.weight", kHuge);
  fill(t, "embeddings.position_embeddings.weight", kHuge);
  EXPECT_EQ(model_error(t),
            "embeddings: the sum of the word, position and token type embeddings overflowed float32 (the embeddings are too large)");
}

TEST(ModelOverflow, EmbeddingsOf1e20OverflowTheLayerNormVariance) {
  // Before the fix the variance became infinity and the LayerNorm returned its bias, silently.
  auto t = bert_tensors_for(kModel);
  for (float& v : t.at("embeddings.word_embeddings.weight").values) v *= 1e20f;
  const std::string message = model_error(t);
  EXPECT_EQ(message.rfind("embeddings: the variance in embeddings.LayerNorm overflowed float32 (its input reaches ", 0), 0u) << message;
  EXPECT_NE(message.find("; with hidden_size = 8 it is sure to fit only below 2.3e+18)"), std::string::npos) << message;
}

// Makes a LayerNorm output all ones (weight 0, bias 1), so the next step's input is known exactly
// and whether a weight of 3e38 overflows does not hang on random values.
void ones_after(std::map<std::string, TestTensor>& t, const std::string& layer_norm) {
  fill(t, layer_norm + ".weight", 0);
  fill(t, layer_norm + ".bias", 1);
}

TEST(ModelOverflow, EachLayerStepIsNamedWithItsLayer) {
  auto t = bert_tensors_for(kModel);
  ones_after(t, "encoder.layer.0.output.LayerNorm");  // layer 1's input
  fill(t, "encoder.layer.1.attention.self.query.weight", kHuge);
  EXPECT_EQ(model_error(t), "layer 1: attention: the queries of head 0" + kAttentionCause);

  t = bert_tensors_for(kModel);
  ones_after(t, "encoder.layer.0.attention.output.LayerNorm");
  fill(t, "encoder.layer.0.intermediate.dense.weight", kHuge);
  EXPECT_EQ(model_error(t), "layer 0: intermediate.dense overflowed float32 (its input or weights are too large)");

  t = bert_tensors_for(kModel);
  fill(t, "encoder.layer.1.intermediate.dense.weight", 0);
  fill(t, "encoder.layer.1.intermediate.dense.bias", 1);  // GELU(1) = 0.84 into output.dense
  fill(t, "encoder.layer.1.output.dense.weight", kHuge);
  EXPECT_EQ(model_error(t), "layer 1: output.dense overflowed float32 (its input or weights are too large)");

  // Normalised values sum to 0, so some are positive: weight · z + bias passes FLT_MAX there.
  t = bert_tensors_for(kModel);
  fill(t, "encoder.layer.0.output.LayerNorm.weight", std::numeric_limits<float>::max());
  fill(t, "encoder.layer.0.output.LayerNorm.bias", std::numeric_limits<float>::max());
  EXPECT_EQ(model_error(t), "layer 0: output.LayerNorm overflowed float32 (its weight or bias is too large)");
}

TEST(ModelOverflow, ResidualSumsAreChecked) {
  // A LayerNorm of bias 2e38 (weight 0) feeds 2e38 to the residual; a branch adding 2e38 to it
  // overflows the sum though both are finite.
  auto t = bert_tensors_for(kModel);
  fill(t, "embeddings.LayerNorm.weight", 0);
  fill(t, "embeddings.LayerNorm.bias", 2e38f);
  for (const char* w : {"query", "key", "value"}) fill(t, std::string("encoder.layer.0.attention.self.") + w + ".weight", 0);
  fill(t, "encoder.layer.0.attention.output.dense.weight", 0);
  fill(t, "encoder.layer.0.attention.output.dense.bias", 2e38f);
  EXPECT_EQ(model_error(t), "layer 0: the residual sum of the layer's input and the attention output overflowed float32 "
                            "(the attention output is too large)");

  t = bert_tensors_for(kModel);
  fill(t, "encoder.layer.0.attention.output.LayerNorm.weight", 0);
  fill(t, "encoder.layer.0.attention.output.LayerNorm.bias", 2e38f);
  fill(t, "encoder.layer.0.intermediate.dense.weight", 0);
  fill(t, "encoder.layer.0.output.dense.weight", 0);
  fill(t, "encoder.layer.0.output.dense.bias", 2e38f);
  EXPECT_EQ(model_error(t), "layer 0: the residual sum of the MLP's input and output overflowed float32 (the MLP output is too large)");
}

TEST(ModelOverflow, LargeEmbeddingsThatFitStillGiveRowsSummingTo1) {
  // 1e15 is far past any real activation but below the LayerNorm's bound (2.3e18 at d = 8):
  // normalised, it gives ordinary attention.
  auto t = bert_tensors_for(kModel);
  for (float& v : t.at("embeddings.word_embeddings.weight").values) v *= 1e15f;
  const Model model(kModel, SafetensorsFile(safetensors_bytes(t)));
  const CollectedRun trace = run_collecting(model, kIds);
  for (const AttentionTrace& layer : trace.layers) expect_rows_sum_to_one(layer);
  for (float v : std::vector<float>(trace.run.hidden.data(), trace.run.hidden.data() + trace.run.hidden.size())) ASSERT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace multihead::testing
