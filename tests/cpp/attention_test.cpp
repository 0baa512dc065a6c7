// MultiHeadAttention against the float64 reference, its defining properties, and its errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "reference.h"

namespace multihead::testing {
namespace {

struct Layer {
  AttentionConfig config;
  AttentionWeights weights;
  MultiHeadAttention attention;
  Layer(int d, int h, bool causal, uint32_t seed = 7)
      : config{d, h, causal}, weights(random_attention_weights(config, seed)), attention(config, weights) {}
};

// Expects `call` to throw E with a message containing every piece of `parts`.
template <class E, class F>
void expect_error(F&& call, std::initializer_list<std::string> parts) {
  try {
    call();
    FAIL() << "no exception thrown";
  } catch (const E& e) {
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(MultiHeadAttention, MatchesTheFloat64ReferenceInEveryMode) {
  // 70 and 100 tokens span several row blocks; head widths 5, 8 and 24 leave packing tails.
  for (auto [n, d, h] : {std::tuple{1, 4, 1}, {5, 12, 3}, {33, 64, 4}, {70, 48, 6}, {100, 20, 4}, {40, 48, 2}}) {
    for (bool causal : {false, true}) {
      for (bool masked : {false, true}) {
        Layer layer(d, h, causal);
        const auto x = random_values(size_t(n) * d, 3);
        std::vector<uint8_t> mask;
        if (masked) for (int j = 0; j < n; ++j) mask.push_back(j == 0 || j % 4 != 2);
        const AttentionTrace t = layer.attention.forward(x, n, mask);
        const ReferenceResult r = reference_attention(x, n, layer.config, layer.weights, mask);
        for (int i = 0; i < h; ++i) EXPECT_LT(max_abs_diff(head_matrix(t.weights, i, n), r.weights[i]), 1e-5);
        EXPECT_LT(max_abs_diff(t.output, r.output), 1e-5) << "n=" << n << " d=" << d << " h=" << h;
        EXPECT_LT(max_abs_diff(layer.attention.forward_output(x, n, mask), r.output), 1e-5);
      }
    }
  }
}

TEST(MultiHeadAttention, ForwardIntoReusesOneTraceAndMatchesForward) {
  Layer layer(24, 3, true);
  AttentionTrace reused;
  for (int n : {9, 40, 9, 40}) {
    const auto x = random_values(size_t(n) * 24, uint32_t(n));
    layer.attention.forward_into(x, n, {}, reused);
    const AttentionTrace fresh = layer.attention.forward(x, n);
    EXPECT_EQ(reused.weights, fresh.weights) << "n=" << n;
    EXPECT_EQ(reused.scores, fresh.scores) << "n=" << n;
    EXPECT_EQ(max_abs_diff(reused.output, fresh.output), 0.0) << "n=" << n;
    EXPECT_EQ(reused.n_tokens, n);
  }
}

TEST(MultiHeadAttention, AnAblatedHeadGivesZerosOrItsMeanToTheOutputProjectionAndKeepsItsWeights) {
  // 37 tokens span two row blocks; heads 1 and 4 zeroed, head 2 replaced by its mean.
  const int n = 37, d = 48, h = 6, dh = d / h;
  const std::vector<Ablation> ablation{Ablation::none, Ablation::zero, Ablation::mean, Ablation::none, Ablation::zero, Ablation::none};
  for (bool causal : {false, true}) {
    Layer layer(d, h, causal);
    const auto x = random_values(size_t(n) * d, 11);
    const Matrix input = ConstMatrixMap(x.data(), n, d);
    AttentionTrace plain, ablated;
    layer.attention.forward_into(input, plain);
    layer.attention.forward_into(input, ablated, ablation.data());
    EXPECT_EQ(ablated.weights, plain.weights);
    EXPECT_EQ(ablated.scores, plain.scores);
    MatrixD want = plain.concat.cast<double>();
    for (int i = 0; i < h; ++i) {
      auto head = want.middleCols(i * dh, dh);
      if (ablation[size_t(i)] == Ablation::zero) head.setZero();
      if (ablation[size_t(i)] == Ablation::mean) head.rowwise() = VectorD(head.colwise().mean());
    }
    EXPECT_LT(max_abs_diff(ablated.concat, want), 1e-6) << "causal " << causal;
    MatrixD output = want * to_double(layer.weights.wo, size_t(d), size_t(d));
    output.rowwise() += to_double(layer.weights.bo, 1, size_t(d)).row(0);
    EXPECT_LT(max_abs_diff(ablated.output, output), 1e-5) << "causal " << causal;
  }
}

TEST(MultiHeadAttention, EveryAttentionRowSumsToOne) {
  Layer layer(64, 8, false);
  const AttentionTrace t = layer.attention.forward(random_values(40 * 64, 4, 3.0f), 40);
  for (int i = 0; i < 8; ++i) {
    const auto w = head_matrix(t.weights, i, 40);
    EXPECT_LT((w.rowwise().sum().array() - 1.0f).abs().maxCoeff(), 1e-5) << "head " << i;
  }
}

TEST(MultiHeadAttention, CausalRowsAreZeroAboveTheDiagonal) {
  Layer layer(24, 3, true);
  const AttentionTrace t = layer.attention.forward(random_values(17 * 24, 5), 17);
  for (int h = 0; h < 3; ++h) {
    const auto w = head_matrix(t.weights, h, 17);
    for (int i = 0; i < 17; ++i) {
      for (int j = i + 1; j < 17; ++j) ASSERT_EQ(w(i, j), 0.0f) << "head " << h << " (" << i << ", " << j << ")";
      EXPECT_NEAR(w.row(i).sum(), 1.0f, 1e-5);
    }
  }
}

TEST(MultiHeadAttention, OneHeadEqualsPlainSingleHeadAttention) {
  const int n = 9, d = 16;
  Layer layer(d, 1, false);
  const auto x = random_values(n * d, 6);
  const AttentionTrace t = layer.attention.forward(x, n);
  // softmax(Q·Kᵀ/√d)·V·W_o + b_o written out in float, with no notion of heads.
  const Matrix X = ConstMatrixMap(x.data(), n, d);
  const ConstMatrixMap Wq(layer.weights.wq.data(), d, d), Wk(layer.weights.wk.data(), d, d),
      Wv(layer.weights.wv.data(), d, d), Wo(layer.weights.wo.data(), d, d);
  const Eigen::Map<const Vector> bq(layer.weights.bq.data(), d), bk(layer.weights.bk.data(), d),
      bv(layer.weights.bv.data(), d), bo(layer.weights.bo.data(), d);
  const Matrix Q = (X * Wq).rowwise() + bq, K = (X * Wk).rowwise() + bk, V = (X * Wv).rowwise() + bv;
  Matrix A = (Q * K.transpose()) / std::sqrt(float(d));
  A = (A.colwise() - A.rowwise().maxCoeff()).array().exp().matrix();
  A = A.array().colwise() / A.rowwise().sum().array();
  const Matrix out = ((A * V) * Wo).rowwise() + bo;
  EXPECT_LT(max_abs_diff(head_matrix(t.weights, 0, n), A), 1e-6);
  EXPECT_LT(max_abs_diff(t.output, out), 1e-5);
}

TEST(MultiHeadAttention, PermutingTheTokensPermutesTheOutputsWhenNotCausal) {
  const int n = 11, d = 20;
  Layer layer(d, 5, false);
  const auto x = random_values(n * d, 8);
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::reverse(perm.begin(), perm.end());
  std::swap(perm[2], perm[7]);
  std::vector<float> xp(x.size());
  for (int i = 0; i < n; ++i) std::copy_n(x.begin() + perm[i] * d, d, xp.begin() + i * d);
  const Matrix out = layer.attention.forward_output(x, n), outp = layer.attention.forward_output(xp, n);
  for (int i = 0; i < n; ++i) EXPECT_LT(max_abs_diff(outp.row(i), out.row(perm[i])), 1e-5) << "row " << i;
}

TEST(MultiHeadAttention, AFullyMaskedRowGivesZerosNotNaN) {
  // Causal plus a hidden first key: query 0 can see nothing.
  const int n = 6, d = 8;
  Layer layer(d, 2, true);
  std::vector<uint8_t> mask(n, 1);
  mask[0] = 0;
  const AttentionTrace t = layer.attention.forward(random_values(n * d, 9), n, mask);
  for (int h = 0; h < 2; ++h) {
    const auto w = head_matrix(t.weights, h, n);
    for (int j = 0; j < n; ++j) EXPECT_EQ(w(0, j), 0.0f);
    EXPECT_NEAR(w.row(1).sum(), 1.0f, 1e-6);
  }
  for (int c = 0; c < d; ++c) EXPECT_EQ(t.concat(0, c), 0.0f);
  EXPECT_TRUE(t.output.allFinite());
  // Every key hidden: every row is zeros, and the output is the bias alone.
  const AttentionTrace all = layer.attention.forward(random_values(n * d, 9), n, std::vector<uint8_t>(n, 0));
  for (float v : all.weights) ASSERT_EQ(v, 0.0f);
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < d; ++c) EXPECT_EQ(all.output(i, c), layer.weights.bo[c]);
  }
}

TEST(MultiHeadAttention, TheTraceHoldsScaledScoresWithHiddenKeysAtMinusInfinity) {
  // 70 tokens: three row blocks, the last one partial; every fifth key masked, and causal.
  const int n = 70, d = 24, h = 3, dh = 8;
  Layer layer(d, h, true);
  std::vector<uint8_t> mask;
  for (int j = 0; j < n; ++j) mask.push_back(j % 5 != 3);
  const AttentionTrace t = layer.attention.forward(random_values(size_t(n) * d, 10), n, mask);
  for (int head = 0; head < h; ++head) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const float s = t.scores[(size_t(head) * n + i) * n + j];
        if (j > i || !mask[j]) {
          ASSERT_EQ(s, -std::numeric_limits<float>::infinity()) << "head " << head << " query " << i << " key " << j;
          continue;
        }
        double dot = 0;
        for (int p = 0; p < dh; ++p) dot += double(t.q(i, head * dh + p)) * t.k(j, head * dh + p);
        ASSERT_NEAR(s, dot / std::sqrt(double(dh)), 1e-5) << "head " << head << " query " << i << " key " << j;
      }
    }
  }
}

TEST(MultiHeadAttention, SeededWeightsAreDeterministic) {
  const AttentionConfig c{12, 3, false};
  EXPECT_EQ(random_attention_weights(c, 42).wq, random_attention_weights(c, 42).wq);
  EXPECT_NE(random_attention_weights(c, 42).wq, random_attention_weights(c, 43).wq);
}

TEST(MultiHeadAttentionErrors, BadConfigurationsNameTheParameterAndValue) {
  expect_error<std::invalid_argument>([] { check_config({10, 3, false}); }, {"d_model (10)", "n_heads (3)", "divisible"});
  expect_error<std::invalid_argument>([] { check_config({12, 0, false}); }, {"n_heads", "at least 1", "got 0"});
  expect_error<std::invalid_argument>([] { check_config({0, 1, false}); }, {"d_model", "got 0"});
  expect_error<std::length_error>([] { check_config({kMaxDModel + 4, 4, false}); },
                                  {"d_model is " + std::to_string(kMaxDModel + 4), "limit"});
  expect_error<std::invalid_argument>([] { random_attention_weights({12, 5, false}, 1); }, {"d_model (12)", "n_heads (5)"});
}

TEST(MultiHeadAttentionErrors, WrongWeightSizesNameTheWeight) {
  const AttentionConfig c{12, 3, false};
  for (const char* name : {"wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo"}) {
    AttentionWeights w = random_attention_weights(c, 1);
    std::vector<float>* field = std::string(name) == "wq" ? &w.wq : std::string(name) == "wk" ? &w.wk
                              : std::string(name) == "wv" ? &w.wv : std::string(name) == "wo" ? &w.wo
                              : std::string(name) == "bq" ? &w.bq : std::string(name) == "bk" ? &w.bk
                              : std::string(name) == "bv" ? &w.bv : &w.bo;
    const std::string expected = std::to_string(field->size());
    field->pop_back();
    expect_error<std::invalid_argument>([&] { MultiHeadAttention(c, w); },
                                        {std::string(name) + " has " + std::to_string(field->size()) + " values",
                                         "= " + expected});
  }
  AttentionWeights w = random_attention_weights(c, 1);
  w.wk[5] = std::numeric_limits<float>::quiet_NaN();
  expect_error<std::invalid_argument>([&] { MultiHeadAttention(c, w); }, {"wk[5] is NaN"});
}

TEST(MultiHeadAttentionErrors, BadInputsNameTheParameterAndValue) {
  Layer layer(12, 3, false);
  const auto& a = layer.attention;
  expect_error<std::invalid_argument>([&] { a.forward({}, 0); }, {"n_tokens", "got 0"});
  expect_error<std::invalid_argument>([&] { a.forward({}, -3); }, {"n_tokens", "got -3"});
  expect_error<std::invalid_argument>([&] { a.forward(random_values(20, 1), 2); }, {"x has 20 values", "2 × 12 = 24"});
  auto x = random_values(24, 1);
  x[13] = std::numeric_limits<float>::infinity();
  expect_error<std::invalid_argument>([&] { a.forward(x, 2); }, {"x[13] is infinite"});
  expect_error<std::invalid_argument>([&] { a.forward(random_values(24, 1), 2, {1, 1, 1}); },
                                      {"key_mask has 3 values", "n_tokens = 2"});
}

TEST(MultiHeadAttentionErrors, TheTokenLimitIsCheckedBeforeAnythingIsAllocated) {
  Layer layer(12, 3, false);
  // x is empty: reaching the size check (or allocating for INT_MAX tokens) would give another error.
  expect_error<std::length_error>([&] { layer.attention.forward({}, kMaxTokens + 1); },
                                  {"n_tokens is " + std::to_string(kMaxTokens + 1), "limit of " + std::to_string(kMaxTokens)});
  expect_error<std::length_error>([&] { layer.attention.forward_output({}, INT_MAX); }, {"n_tokens is 2147483647"});
  // Within the token limit, but the per-head (n, n) matrices would pass the memory limit.
  Layer wide(64, 32, false);
  expect_error<std::length_error>([&] { wide.attention.forward({}, kMaxTokens); }, {"MiB", "above the limit of 1024 MiB"});
}

}  // namespace
}  // namespace multihead::testing
