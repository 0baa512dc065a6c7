// The shipped default model (web/models/default) against its PyTorch definition on the fixture
// sentences (tests/fixtures/model, made by tools/make_model_fixtures.py): every layer's attention
// and the final hidden states to 1e-4 absolute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "multihead/kernels.h"
#include "multihead/model.h"
#include "fixture_files.h"
#include "model_run.h"
#include "reference.h"

namespace multihead::testing {
namespace {

const std::string kFixtures = std::string(MULTIHEAD_FIXTURES_DIR) + "/model/";
const std::string kModel = std::string(MULTIHEAD_MODELS_DIR) + "/default/";

std::vector<std::string> fixture_cases() { return subfolders(kFixtures); }

const Model& default_model() {
  static const Model model = [] {
    const std::vector<uint8_t> config = read_file(kModel + "config.json");
    return Model(parse_model_config(std::string(config.begin(), config.end())), SafetensorsFile(read_file(kModel + "model.safetensors")));
  }();
  return model;
}

class ModelFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelFixture, MatchesThePyTorchModelTo1e4) {
  std::map<std::string, int> v = case_fields(kFixtures + GetParam() + "/case.txt");
  const int n = v["n_tokens"], layers = v["n_layers"], heads = v["n_heads"], d = v["d_model"];
  ASSERT_GT(n, 0) << "no n_tokens in " << GetParam() << "/case.txt";
  const auto ids = read_values<int32_t>(kFixtures + GetParam() + "/ids.i32", n);
  const auto attention = read_values<float>(kFixtures + GetParam() + "/attention.f32", size_t(layers) * heads * n * n);
  const auto hidden = read_values<float>(kFixtures + GetParam() + "/hidden.f32", size_t(n) * d);

  const CollectedRun trace = run_collecting(default_model(), ids);
  ASSERT_EQ(int(trace.layers.size()), layers);
  double attention_diff = 0;
  for (int l = 0; l < layers; ++l) {
    attention_diff = std::max(attention_diff, max_abs_diff(ConstMatrixMap(trace.layers[l].weights.data(), heads * n, n),
                                                           ConstMatrixMap(attention.data() + size_t(l) * heads * n * n, heads * n, n)));
  }
  const double hidden_diff = max_abs_diff(trace.run.hidden, ConstMatrixMap(hidden.data(), n, d));
  std::printf("[ fixture  ] model %-12s %-8s max |diff| attention %.3g, hidden %.3g\n", GetParam().c_str(),
              kernels::active_kernels().name, attention_diff, hidden_diff);
  EXPECT_LT(attention_diff, 1e-4);
  EXPECT_LT(hidden_diff, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(DefaultModel, ModelFixture, ::testing::ValuesIn(fixture_cases()));

}  // namespace
}  // namespace multihead::testing
