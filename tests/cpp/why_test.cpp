// The "why" tools on every checkpoint fixture with an LM head (the BERT family, GPT-2, the Llama
// family, Pythia, Gemma 3): direct logit attribution's parts add up to the model's logit
// difference (and to a logit alone, and under ablation), the logit lens's last row is the model's
// own prediction, and activation patching computes a patched run bit for bit as the runs it is
// normalised by: patching the residual entering layer 0 where the texts differ gives the clean
// run exactly, anywhere else the corrupted run exactly. tests/js/analysis/why.test.js checks the
// numbers against tools/make_why_fixtures.py's float64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fixture_compare.h"
#include "fixture_files.h"
#include "multihead/model_loader.h"
#include "multihead/patching.h"

namespace multihead::testing {
namespace {

const std::string kCheckpoints = std::string(MULTIHEAD_FIXTURES_DIR) + "/checkpoints/";
constexpr int kTokens = 9;

Model load(const std::string& name) { return load_model(kCheckpoints + name); }

std::vector<std::string> checkpoints_with_head() {
  std::vector<std::string> out;
  for (const std::string& name : subfolders(kCheckpoints)) {
    if (load(name).has_lm_head()) out.push_back(name);
  }
  return out;
}

std::vector<int32_t> some_ids(const Model& model, int n) {
  std::vector<int32_t> ids;
  for (int i = 0; i < n; ++i) ids.push_back(int32_t((7919u * uint32_t(i + 5)) % uint32_t(model.config().vocab_size)));
  return ids;
}

// The two likeliest ids at row `position` of a run's hidden states.
std::pair<int32_t, int32_t> top_two(const Model& model, const Matrix& hidden, int position) {
  const std::vector<float> logits = model.logits(hidden.data() + size_t(position) * size_t(hidden.cols()));
  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + 2, order.end(), [&](int32_t a, int32_t b) { return logits[size_t(a)] > logits[size_t(b)]; });
  return {order[0], order[1]};
}

class WhyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WhyTest, ThePartsAddUpToTheLogitDifference) {
  const Model model = load(GetParam());
  const ModelConfig& c = model.config();
  const std::vector<int32_t> ids = some_ids(model, kTokens);
  std::vector<Ablation> mean(size_t(c.num_hidden_layers) * size_t(c.num_attention_heads), Ablation::none), zero = mean;
  mean[1] = Ablation::mean;
  zero[0] = zero.back() = Ablation::zero;
  for (const std::vector<Ablation>& ablation : {std::vector<Ablation>{}, mean, zero}) {
    const ModelRun run = model.run(ids, {}, ablation);
    for (int position : {kTokens - 1, 2}) {
      const ResidualParts parts = model.explain(ids, position, ablation);
      const float* hidden = run.hidden.data() + size_t(position) * size_t(run.hidden.cols());
      // explain() is run()'s pass: the same hidden state, bit for bit.
      EXPECT_TRUE(std::equal(parts.hidden().data(), parts.hidden().data() + c.hidden_size, hidden)) << GetParam();
      const auto [token, against] = top_two(model, run.hidden, position);
      for (int32_t other : {against, -1}) {
        const std::vector<double> shares = model.part_logits(parts, token, other);
        ASSERT_EQ(shares.size(), size_t(2 + c.num_hidden_layers * (c.num_attention_heads + 1)));
        const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
        const double logit = model.logit_difference(hidden, token, other, false);
        double largest = 0;
        for (double s : shares) largest = std::max(largest, std::abs(s));
        EXPECT_LT(std::abs(sum - logit), 1e-4 * std::max(std::abs(logit), 1.0))
            << GetParam() << " at " << position << (other == -1 ? ", the logit alone" : ", a difference") << ": parts sum to " << sum
            << ", the logit is " << logit << " (largest part " << largest << ")";
      }
    }
  }
}

TEST_P(WhyTest, TheLensEndsWithTheModelsPrediction) {
  const Model model = load(GetParam());
  const std::vector<int32_t> ids = some_ids(model, kTokens);
  const ResidualParts parts = model.explain(ids, kTokens - 1);
  const Matrix rows = model.lens(parts);
  ASSERT_EQ(rows.rows(), model.config().num_hidden_layers + 1);
  const ModelRun run = model.run(ids);
  const std::vector<float> last = model.logits(rows.data() + size_t(rows.rows() - 1) * size_t(rows.cols()));
  const std::vector<float> want = model.logits(run.hidden.data() + size_t(kTokens - 1) * size_t(run.hidden.cols()));
  EXPECT_EQ(last, want) << GetParam();
}

TEST_P(WhyTest, ARunForOneRowGivesThatRowOfTheWholeRun) {
  const Model model = load(GetParam());
  const std::vector<int32_t> ids = some_ids(model, kTokens);
  const Matrix whole = model.run(ids).hidden;
  for (int row : {0, 4, kTokens - 1}) {
    const Matrix one = model.run_from(0, model.embeddings(ids), {}, nullptr, row);
    ASSERT_EQ(one.rows(), 1);
    const float scale = std::max(1.0f, whole.row(row).cwiseAbs().maxCoeff());
    EXPECT_LT((one.row(0) - whole.row(row)).cwiseAbs().maxCoeff(), 1e-5f * scale) << GetParam() << " at row " << row;
  }
  EXPECT_THROW(model.run_from(0, model.embeddings(ids), {}, nullptr, kTokens), std::invalid_argument);
}

TEST_P(WhyTest, APatchedRunIsComputedAsTheRunsItIsNormalisedBy) {
  const Model model = load(GetParam());
  std::vector<int32_t> clean = some_ids(model, kTokens), corrupted = clean;
  const int swapped = 3, last = kTokens - 1;
  corrupted[swapped] = (clean[swapped] + 11) % model.config().vocab_size;
  const auto [token, against] = top_two(model, model.run(clean).hidden, last);
  const Patching patching(model, clean, corrupted, last, token, against);
  // The ends are the runs' own, the last layer computed for the measured row alone (to rounding, as a whole run).
  const double whole = model.logit_difference(model.run(clean).hidden.data() + size_t(last) * size_t(model.config().hidden_size), token, against);
  EXPECT_NEAR(patching.clean(), whole, 1e-5 * std::max(1.0, std::abs(whole))) << GetParam();
  for (int i = 0; i < kTokens; ++i) {
    EXPECT_EQ(patching.position(0, i), i == swapped ? patching.clean() : patching.corrupted()) << GetParam() << " at " << i;
  }
  // Before the swapped token a causal model's residuals are the same in both texts: patching them changes nothing.
  if (model.config().architecture->mask == Mask::causal) EXPECT_EQ(patching.position(1, 0), patching.corrupted()) << GetParam();
  // Patching every head of the first layer at once is not offered; one head moves the metric, or not, finitely.
  EXPECT_TRUE(std::isfinite(patching.head(0, 0)));
  EXPECT_THROW(Patching(model, clean, std::vector<int32_t>(clean.begin(), clean.end() - 1), last, token, against), std::invalid_argument);
  try {
    Patching(model, clean, std::vector<int32_t>(clean.begin(), clean.end() - 1), last, token, against);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("9 tokens and the corrupted one 8"), std::string::npos) << e.what();
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(WhyTest);
INSTANTIATE_TEST_SUITE_P(Checkpoints, WhyTest, ::testing::ValuesIn(checkpoints_with_head()),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace multihead::testing
