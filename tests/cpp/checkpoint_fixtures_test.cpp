// The checkpoint fixtures (tests/fixtures/checkpoints, made by tools/make_checkpoints.py: small
// random models in the real Hub layouts of bert-base-uncased, a recent BertModel, DistilBERT,
// RoBERTa, both GPT-2 layouts and a 12-layer BERT) against their float64 PyTorch references, each
// loaded through ModelLoader from its header, then its data in 4 KiB chunks: every layer's
// attention and input and the hidden states to 1e-4 absolute, the logits to 1e-3 of the case's
// largest |logit|. A checkpoint without an LM head must say so from logits().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "fixture_files.h"
#include "model_run.h"
#include "multihead/kernels.h"
#include "multihead/model_loader.h"
#include "reference.h"

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

Model load_streaming(const std::string& folder) {
  const std::vector<uint8_t> config = read_file(folder + "/config.json");
  const std::vector<uint8_t> bytes = read_file(folder + "/model.safetensors");
  const size_t start = SafetensorsHeader(bytes.data(), bytes.size()).data_start();
  ModelLoader loader(parse_model_config(std::string(config.begin(), config.end())), SafetensorsHeader(bytes.data(), start));
  for (size_t at = start; at < bytes.size(); at += 4096) loader.write(bytes.data() + at, std::min<size_t>(4096, bytes.size() - at));
  return loader.finish();
}

class CheckpointFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckpointFixture, MatchesThePyTorchReference) {
  const std::string checkpoint = GetParam().substr(0, GetParam().find('/'));
  const std::string dir = kCheckpoints + checkpoint + "/cases/" + GetParam().substr(checkpoint.size() + 1) + "/";
  auto v = case_fields(dir + "case.txt");
  const int n = v["n_tokens"], layers = v["n_layers"], heads = v["n_heads"], d = v["d_model"], vocab = v["vocab_size"];
  ASSERT_GT(n, 0) << "no n_tokens in " << dir << "case.txt";
  const Model model = load_streaming(kCheckpoints + checkpoint);
  const auto ids = read_values<int32_t>(dir + "ids.i32", size_t(n));
  const auto attention = read_values<float>(dir + "attention.f32", size_t(layers) * heads * n * n);
  const auto inputs = read_values<float>(dir + "inputs.f32", size_t(layers) * n * d);
  const auto hidden = read_values<float>(dir + "hidden.f32", size_t(n) * d);

  const CollectedRun run = run_collecting(model, ids);
  ASSERT_EQ(int(run.layers.size()), layers);
  double attention_diff = 0, inputs_diff = 0, logits_diff = 0;
  for (int l = 0; l < layers; ++l) {
    attention_diff = std::max(attention_diff, max_abs_diff(ConstMatrixMap(run.layers[size_t(l)].weights.data(), heads * n, n),
                                                           ConstMatrixMap(attention.data() + size_t(l) * heads * n * n, heads * n, n)));
    inputs_diff = std::max(inputs_diff, max_abs_diff(run.run.inputs[size_t(l)], ConstMatrixMap(inputs.data() + size_t(l) * n * d, n, d)));
  }
  const double hidden_diff = max_abs_diff(run.run.hidden, ConstMatrixMap(hidden.data(), n, d));
  EXPECT_LT(attention_diff, 1e-4);
  EXPECT_LT(inputs_diff, 1e-4);
  EXPECT_LT(hidden_diff, 1e-4);
  if (std::filesystem::exists(dir + "logits.f32")) {
    ASSERT_TRUE(model.has_lm_head());
    const auto want = read_values<float>(dir + "logits.f32", size_t(n) * vocab);
    const ConstMatrixMap want_m(want.data(), n, vocab);
    const double scale = want_m.cwiseAbs().maxCoeff();
    for (int i = 0; i < n; ++i) {
      const std::vector<float> got = model.logits(run.run.hidden.data() + size_t(i) * d);
      ASSERT_EQ(got.size(), size_t(vocab));
      logits_diff = std::max(logits_diff, max_abs_diff(ConstMatrixMap(got.data(), 1, vocab), want_m.row(i)) / scale);
    }
    EXPECT_LT(logits_diff, 1e-3);
  } else {
    EXPECT_FALSE(model.has_lm_head());
    EXPECT_THROW(model.logits(run.run.hidden.data()), std::invalid_argument);
  }
  std::printf("[ fixture  ] %-28s %-8s max |diff| attention %.3g, inputs %.3g, hidden %.3g, logits/max %.3g\n", GetParam().c_str(),
              kernels::active_kernels().name, attention_diff, inputs_diff, hidden_diff, logits_diff);
}

// Until tests/fixtures/checkpoints is merged there are no cases, and that is not a failure.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CheckpointFixture);
INSTANTIATE_TEST_SUITE_P(Checkpoints, CheckpointFixture, ::testing::ValuesIn(fixture_cases()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
                           return name;
                         });

}  // namespace
}  // namespace multihead::testing
