// The checkpoint fixtures (tests/fixtures/checkpoints, made by tools/make_checkpoints.py: small
// random models in the real Hub layouts of bert-base-uncased, a recent BertModel, DistilBERT,
// RoBERTa, both GPT-2 layouts and a 12-layer BERT) against their float64 PyTorch references, each
// loaded through ModelLoader from its header, then its data in 4 KiB chunks: every layer's
// attention and input and the hidden states to 1e-4 absolute, the logits to 1e-3 of the case's
// largest |logit|. A checkpoint without an LM head must say so from logits(). The ablated cases
// run with the heads their ablation.u8 names switched off (zeroed, or replaced by their mean), as
// PyTorch did (fixture_compare.h reads it).
#include <gtest/gtest.h>

#include <algorithm>

#include "fixture_compare.h"
#include "fixture_files.h"

namespace multihead::testing {
namespace {

const std::string kCheckpoints = std::string(MULTIHEAD_FIXTURES_DIR) + "/checkpoints/";

std::vector<std::string> fixture_cases() {
  std::vector<std::string> cases;
  for (const std::string& checkpoint : subfolders(kCheckpoints)) {
    for (const std::string& c : subfolders(kCheckpoints + checkpoint + "/cases")) cases.push_back(checkpoint + "/" + c);
  }
  return cases;
}

class CheckpointFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckpointFixture, MatchesThePyTorchReference) {
  const std::string checkpoint = GetParam().substr(0, GetParam().find('/'));
  const std::string dir = kCheckpoints + checkpoint + "/cases/" + GetParam().substr(checkpoint.size() + 1) + "/";
  const Model model = load_streaming(kCheckpoints + checkpoint);
  expect_matches_fixture(model, dir, GetParam());
  if (!std::filesystem::exists(dir + "logits.f32")) EXPECT_FALSE(model.has_lm_head());
}

// Until tests/fixtures/checkpoints is merged there are no cases, and that is not a failure.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CheckpointFixture);
INSTANTIATE_TEST_SUITE_P(Checkpoints, CheckpointFixture, ::testing::ValuesIn(fixture_cases()),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace multihead::testing
