// The built-in models (web/models/default, a BERT, and web/models/causal, a GPT-2) against their
// PyTorch definitions on the fixture sentences (tests/fixtures/models/<model>/<case>, made by
// tools/make_model_fixtures.py): every layer's attention and input, and the final hidden states, to
// 1e-4 absolute; the logits (the default model's MLM head, the causal model's) to 1e-3 of the largest.
#include <gtest/gtest.h>

#include <map>

#include "fixture_compare.h"
#include "fixture_files.h"
#include "multihead/model.h"

namespace multihead::testing {
namespace {

const std::string kFixtures = std::string(MULTIHEAD_FIXTURES_DIR) + "/models/";
const std::string kModels = std::string(MULTIHEAD_MODELS_DIR) + "/";

// "<model>/<case>" for every case of every built-in model.
std::vector<std::string> fixture_cases() {
  std::vector<std::string> cases;
  for (const std::string& model : subfolders(kFixtures)) {
    for (const std::string& c : subfolders(kFixtures + model)) cases.push_back(model + "/" + c);
  }
  return cases;
}

const Model& builtin_model(const std::string& name) {
  static std::map<std::string, Model> models;
  auto it = models.find(name);
  if (it == models.end()) {
    it = models.emplace(name, load_model(kModels + name)).first;
  }
  return it->second;
}

TEST(ModelFixtures, EachBuiltinModelHasAtLeastFiveCases) {
  for (const char* model : {"default", "causal"}) EXPECT_GE(subfolders(kFixtures + model).size(), 5u) << model;
}

class ModelFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelFixture, MatchesThePyTorchModel) {
  const std::string model = GetParam().substr(0, GetParam().find('/'));
  expect_matches_fixture(builtin_model(model), kFixtures + GetParam() + "/", GetParam());
}

INSTANTIATE_TEST_SUITE_P(BuiltinModels, ModelFixture, ::testing::ValuesIn(fixture_cases()),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace multihead::testing
