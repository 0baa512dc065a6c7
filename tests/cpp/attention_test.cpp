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
      : config(multi_head_config(d, h, causal)), weights(random_attention_weights(config, seed)), attention(config, weights) {}
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
    EXPECT_EQ(reused.n_queries, n);
    EXPECT_EQ(reused.n_keys, n);
  }
}

TEST(MultiHeadAttention, AnAblatedHeadGivesZerosOrItsMeanToTheOutputProjectionAndKeepsItsWeights) {
  // 37 tokens span two row blocks; heads 1 and 4 zeroed, head 2 replaced by its mean: over every
  // position without a causal mask, and at position t over positions 0..t with one.
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
      if (ablation[size_t(i)] != Ablation::mean) continue;
      if (!causal) {
        head.rowwise() = VectorD(head.colwise().mean());
        continue;
      }
      for (int t = n - 1; t >= 0; --t) head.row(t) = head.topRows(t + 1).colwise().mean();
    }
    EXPECT_LT(max_abs_diff(ablated.concat, want), 1e-6) << "causal " << causal;
    MatrixD output = want * to_double(layer.weights.wo, size_t(d), size_t(d));
    output.rowwise() += to_double(layer.weights.bo, 1, size_t(d)).row(0);
    EXPECT_LT(max_abs_diff(ablated.output, output), 1e-5) << "causal " << causal;
  }
}

// One shape of attention for the any-shape tests: the queries' and the keys' counts, the layer's
// sizes, the first query's position, and whether a causal mask, a key mask and a score bias apply.
struct Shape {
  int n_q, n_k, d, h, kv, dh, position;
  bool causal, masked = false, biased = false;
  int window = 0;
  double scale = 0;
};

std::string describe(const Shape& s) {
  return "n_q=" + std::to_string(s.n_q) + " n_k=" + std::to_string(s.n_k) + " d=" + std::to_string(s.d) + " h=" + std::to_string(s.h) +
         " kv=" + std::to_string(s.kv) + " dh=" + std::to_string(s.dh) + " position=" + std::to_string(s.position) +
         (s.causal ? " causal" : "") + (s.masked ? " masked" : "") + (s.biased ? " biased" : "") +
         (s.window ? " window=" + std::to_string(s.window) : "") + (s.scale ? " scale=" + std::to_string(s.scale) : "");
}

TEST(MultiHeadAttention, AttentionOfAnyShapeMatchesAttentionNaive) {
  const std::vector<Shape> shapes = {
      {5, 5, 12, 3, 1, 4, 0, false},          // one key/value head for every query head
      {5, 5, 12, 3, 1, 4, 0, true, true},
      {7, 7, 16, 4, 2, 8, 0, true},           // grouped, and d_head ≠ d / h (4 × 8 = 32 ≠ 16)
      {9, 9, 24, 6, 3, 5, 0, false, false, true},
      {1, 9, 24, 6, 3, 5, 8, true},           // one new query after 8 cached keys, as a step of generation
      {3, 40, 32, 8, 2, 4, 37, true, true},   // the last 3 queries of 40
      {2, 40, 32, 8, 2, 4, 10, true, false, true},  // queries in the middle: the keys after them are hidden
      {33, 70, 20, 4, 4, 7, 0, false, true, true},  // cross-attention: more keys than queries, none hidden
      {70, 70, 48, 6, 1, 8, 0, true},         // several row blocks, multi-query
      {40, 17, 12, 2, 2, 6, 0, true},         // more queries than keys
      {100, 100, 20, 4, 4, 5, 0, true},       // standard multi-head attention
      {70, 70, 16, 4, 1, 8, 0, true, false, false, 5},   // a sliding window of 5, across row blocks
      {40, 40, 16, 4, 2, 8, 0, true, true, true, 33},    // a window a query passes at position 33, masked and biased
      {1, 50, 16, 4, 2, 8, 49, true, false, false, 8},   // one step of generation: only the last 8 keys
      {3, 40, 16, 4, 4, 4, 37, true, false, false, 1},   // a window of one: each query sees itself
      {9, 9, 24, 6, 3, 5, 0, true, false, false, 0, 0.0625},  // a score scale of its own (Gemma's query_pre_attn_scalar^−½)
  };
  for (const Shape& s : shapes) {
    const AttentionConfig c{.d_model = s.d, .n_heads = s.h, .n_kv_heads = s.kv, .d_head = s.dh, .causal = s.causal,
                            .window = s.window, .scale = s.scale};
    const AttentionWeights w = random_attention_weights(c, 7);
    const MultiHeadAttention layer(c, w);
    const auto x_q = random_values(size_t(s.n_q) * s.d, 3), x_kv = random_values(size_t(s.n_k) * s.d, 4);
    std::vector<uint8_t> mask;
    if (s.masked) for (int j = 0; j < s.n_k; ++j) mask.push_back(j == 0 || j % 4 != 2);
    std::vector<double> bias_d;
    std::vector<float> bias;
    if (s.biased) {
      bias = random_values(size_t(s.h) * s.n_q * s.n_k, 5, 2.0f);
      bias_d.assign(bias.begin(), bias.end());
    }
    AttentionTrace t;
    layer.forward_into({.x_q = x_q.data(), .n_queries = s.n_q, .x_kv = x_kv.data(), .n_keys = s.n_k, .query_position = s.position,
                        .key_mask = mask.empty() ? nullptr : mask.data(), .score_bias = bias.empty() ? nullptr : bias.data()},
                       t);
    const ReferenceResult r = reference_attention(x_q, s.n_q, x_kv, s.n_k, c, w, s.position, mask, bias_d);
    EXPECT_EQ(t.q.rows(), s.n_q) << describe(s);
    EXPECT_EQ(t.q.cols(), s.h * s.dh) << describe(s);
    EXPECT_EQ(t.k.rows(), s.n_k) << describe(s);
    EXPECT_EQ(t.k.cols(), s.kv * s.dh) << describe(s);
    EXPECT_EQ(t.output.cols(), s.d) << describe(s);
    for (int i = 0; i < s.h; ++i) {
      EXPECT_EQ(t.kv_head(i), i / (s.h / s.kv));
      EXPECT_LT(max_abs_diff(t.head_weights(i), r.weights[size_t(i)]), 1e-5) << describe(s) << " head " << i;
    }
    EXPECT_LT(max_abs_diff(t.output, r.output), 1e-5) << describe(s);
  }
}

TEST(MultiHeadAttention, QueryHeadIReadsKeyValueHeadIOverTheGroupSizeNotIModuloKv) {
  // 4 query heads on 2 key/value heads: heads 0 and 1 share key/value head 0, heads 2 and 3 head 1.
  // W_q gives heads 0 and 1 the same queries (and 2 and 3), so heads sharing keys have the same
  // weights; with i % kv, head 1 would read key/value head 1 and differ from head 0.
  const AttentionConfig c{.d_model = 8, .n_heads = 4, .n_kv_heads = 2, .d_head = 3, .causal = false};
  AttentionWeights w = random_attention_weights(c, 9);
  for (int row = 0; row < 8; ++row) {
    for (int col = 0; col < 3; ++col) {
      w.wq[size_t(row) * 12 + 3 + col] = w.wq[size_t(row) * 12 + col];
      w.wq[size_t(row) * 12 + 9 + col] = w.wq[size_t(row) * 12 + 6 + col];
    }
  }
  for (int col = 0; col < 3; ++col) w.bq[size_t(3 + col)] = w.bq[size_t(col)], w.bq[size_t(9 + col)] = w.bq[size_t(6 + col)];
  const AttentionTrace t = MultiHeadAttention(c, w).forward(random_values(6 * 8, 2), 6);
  EXPECT_EQ(max_abs_diff(t.head_weights(0), t.head_weights(1)), 0.0);
  EXPECT_EQ(max_abs_diff(t.head_weights(2), t.head_weights(3)), 0.0);
  EXPECT_GT(max_abs_diff(t.head_weights(0), t.head_weights(2)), 1e-3);
  EXPECT_EQ(max_abs_diff(t.keys(1), t.keys(0)), 0.0);  // the trace's per-head keys are the shared head's
}

TEST(MultiHeadAttention, TheRotationStepRotatesQueriesAndKeysAtTheirPositionsBeforeTheScores) {
  // A made-up rotation (each row scaled by 1 + position / 10): the pass must apply it to the
  // queries at query_position + r and to the keys at r, before the scores.
  const AttentionConfig c{.d_model = 12, .n_heads = 4, .n_kv_heads = 2, .d_head = 3, .causal = true};
  const AttentionWeights w = random_attention_weights(c, 3);
  MultiHeadAttention layer(c, w);
  layer.set_rotation([](Matrix& x, int, int first) {
    for (Eigen::Index r = 0; r < x.rows(); ++r) x.row(r) *= 1.0f + float(first + r) / 10.0f;
  });
  const int n_q = 3, n_k = 10, position = 7;
  const auto x_q = random_values(size_t(n_q) * 12, 1), x_kv = random_values(size_t(n_k) * 12, 2);
  AttentionTrace t;
  layer.forward_into({.x_q = x_q.data(), .n_queries = n_q, .x_kv = x_kv.data(), .n_keys = n_k, .query_position = position}, t);
  // The reference: project, rotate the same way, attend.
  const auto project = [&](const std::vector<float>& x, int n, const std::vector<float>& W, const std::vector<float>& b, int width,
                           int first) {
    MatrixD y = to_double(x, size_t(n), 12) * to_double(W, 12, size_t(width));
    y.rowwise() += to_double(b, 1, size_t(width)).row(0);
    for (int r = 0; r < n; ++r) y.row(r) *= double(1.0f + float(first + r) / 10.0f);
    return flat(y);
  };
  const NaiveAttention a = attention_naive(project(x_q, n_q, w.wq, w.bq, 12, position), project(x_kv, n_k, w.wk, w.bk, 6, 0),
                                           flat(to_double(x_kv, size_t(n_k), 12) * to_double(w.wv, 12, 6) +
                                                MatrixD::Ones(n_k, 1) * to_double(w.bv, 1, 6)),
                                           n_q, n_k, {.d_model = 12, .n_heads = 4, .n_kv_heads = 2, .d_head = 3, .causal = true}, position);
  for (int i = 0; i < 4; ++i) {
    EXPECT_LT(max_abs_diff(t.head_weights(i), Eigen::Map<const MatrixD>(a.weights.data() + size_t(i) * n_q * n_k, n_q, n_k)), 1e-5) << i;
  }
}

const AttentionConfig kOneHead{.d_model = 1, .n_heads = 1, .n_kv_heads = 1, .d_head = 1};

TEST(MultiHeadAttention, ASlidingWindowHidesTheKeysBeforeItAsWellAsAfter) {
  // Four tokens, a window of 2: the query at position p sees keys p − 1 and p only.
  const AttentionConfig c{.d_model = 4, .n_heads = 1, .n_kv_heads = 1, .d_head = 4, .causal = true, .window = 2};
  const MultiHeadAttention layer(c, random_attention_weights(c, 3));
  const AttentionTrace t = layer.forward(random_values(16, 8), 4);
  for (int r = 0; r < 4; ++r) {
    for (int j = 0; j < 4; ++j) {
      const bool seen = j <= r && j >= r - 1;
      EXPECT_EQ(t.head_weights(0)(r, j) > 0, seen) << r << ", " << j;
      if (!seen) EXPECT_EQ(t.head_scores(0)(r, j), -std::numeric_limits<float>::infinity()) << r << ", " << j;
    }
  }
  const NaiveAttention a = attention_naive({1, 1, 1}, {1, 3, 2}, {10, 20, 30}, 3, 3, {.d_model = 1, .n_heads = 1, .n_kv_heads = 1,
                                           .d_head = 1, .causal = true, .window = 2}, 0);
  EXPECT_EQ(a.weights[6], 0.0);  // query 2 does not see key 0
  EXPECT_NEAR(a.weights[7], 1 / (1 + std::exp(-1.0)), 1e-15);  // softmax(3, 2) over keys 1 and 2
}

TEST(MultiHeadAttention, AttentionNaiveGivesAHiddenRowZerosAndTheDefinitionOnAHandExample) {
  // One head, d_head 1, two keys: scores q·k / 1 = {1·1, 1·3} → weights softmax(1, 3); out = Σ w·v.
  const NaiveAttention a = attention_naive({1}, {1, 3}, {10, 20}, 1, 2, kOneHead, 0);
  const double w0 = 1 / (1 + std::exp(2.0));
  EXPECT_NEAR(a.weights[0], w0, 1e-15);
  EXPECT_NEAR(a.weights[1], 1 - w0, 1e-15);
  EXPECT_NEAR(a.concat[0], 10 * w0 + 20 * (1 - w0), 1e-12);
  const NaiveAttention hidden = attention_naive({1}, {1, 3}, {10, 20}, 1, 2, kOneHead, 0, {}, {0, 0});
  EXPECT_EQ(hidden.weights, std::vector<double>({0, 0}));
  EXPECT_EQ(hidden.concat, std::vector<double>({0}));
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
  const AttentionConfig c = multi_head_config(12, 3, false);
  EXPECT_EQ(random_attention_weights(c, 42).wq, random_attention_weights(c, 42).wq);
  EXPECT_NE(random_attention_weights(c, 42).wq, random_attention_weights(c, 43).wq);
}

TEST(MultiHeadAttentionErrors, BadConfigurationsNameTheParameterAndValue) {
  const auto config = [](int d, int h, int kv, int dh) { return AttentionConfig{.d_model = d, .n_heads = h, .n_kv_heads = kv, .d_head = dh}; };
  expect_error<std::invalid_argument>([] { multi_head_config(10, 3, false); }, {"d_model (10)", "n_heads (3)", "divisible", "d_head"});
  expect_error<std::invalid_argument>([&] { check_config(config(12, 0, 1, 4)); }, {"n_heads", "at least 1", "got 0"});
  expect_error<std::invalid_argument>([&] { check_config(config(0, 1, 1, 4)); }, {"d_model", "got 0"});
  expect_error<std::invalid_argument>([&] { check_config(config(12, 4, 0, 3)); }, {"n_kv_heads", "at least 1", "got 0"});
  expect_error<std::invalid_argument>([&] { check_config(config(12, 4, 4, 0)); }, {"d_head", "at least 1", "got 0"});
  expect_error<std::invalid_argument>([&] { check_config(config(12, 6, 4, 2)); }, {"n_heads (6)", "multiple of n_kv_heads (4)"});
  expect_error<std::length_error>([&] { check_config(config(kMaxDModel + 4, 4, 4, 2)); },
                                  {"d_model is " + std::to_string(kMaxDModel + 4), "limit"});
  expect_error<std::length_error>([&] { check_config(config(64, 64, 8, 128)); }, {"n_heads × d_head is 64 × 128", "limit"});
  expect_error<std::invalid_argument>([&] { random_attention_weights(config(12, 6, 4, 2), 1); }, {"n_heads (6)", "n_kv_heads (4)"});
  AttentionConfig c = config(12, 4, 4, 3);
  c.window = 4;
  expect_error<std::invalid_argument>([&] { check_config(c); }, {"window", "got 4 without a causal mask"});
  c.causal = true;
  c.window = -1;
  expect_error<std::invalid_argument>([&] { check_config(c); }, {"window", "got -1"});
  c.window = 0;
  c.scale = std::nan("");
  expect_error<std::invalid_argument>([&] { check_config(c); }, {"scale", "finite positive"});
}

TEST(MultiHeadAttentionErrors, WrongWeightSizesNameTheWeight) {
  const AttentionConfig c = multi_head_config(12, 3, false);
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

TEST(MultiHeadAttentionErrors, TheCheckedGeneralPassNamesQueriesKeysAndPosition) {
  Layer layer(12, 3, true);
  const auto& a = layer.attention;
  const auto x_q = random_values(24, 1), x_kv = random_values(36, 2);
  AttentionTrace t;
  expect_error<std::invalid_argument>([&] { a.forward_into(x_q, 2, x_kv, 4, 0, {}, t); }, {"x_kv has 36 values", "n_keys × d_model = 4 × 12"});
  expect_error<std::invalid_argument>([&] { a.forward_into(x_q, 3, x_kv, 3, 0, {}, t); }, {"x_q has 24 values", "n_queries × d_model = 3 × 12"});
  expect_error<std::invalid_argument>([&] { a.forward_into(x_q, 2, x_kv, 0, 0, {}, t); }, {"n_keys", "got 0"});
  expect_error<std::invalid_argument>([&] { a.forward_into(x_q, 2, x_kv, 3, -1, {}, t); }, {"query_position", "got -1"});
  expect_error<std::invalid_argument>([&] { a.forward_into(x_q, 2, x_kv, 3, 1, {1, 1}, t); }, {"key_mask has 2 values", "n_keys"});
  auto bad = x_kv;
  bad[30] = std::numeric_limits<float>::quiet_NaN();
  expect_error<std::invalid_argument>([&] { a.forward_output(x_q, 2, bad, 3, 1); }, {"x_kv[30]"});
  // And after the errors, a good pass matches the unchecked entry it wraps.
  a.forward_into(x_q, 2, x_kv, 3, 1, {}, t);
  AttentionTrace direct;
  a.forward_into({.x_q = x_q.data(), .n_queries = 2, .x_kv = x_kv.data(), .n_keys = 3, .query_position = 1}, direct);
  EXPECT_EQ(max_abs_diff(t.output, direct.output), 0.0);
  EXPECT_EQ(max_abs_diff(a.forward_output(x_q, 2, x_kv, 3, 1), direct.output), 0.0);
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
