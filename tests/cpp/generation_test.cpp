// Generation's KV cache (Model::extend) against whole runs: for every causal checkpoint fixture
// (GPT-2's two layouts, Llama, Llama 3's scaled RoPE, Mistral, Qwen2, Qwen3, Pythia and Gemma 3,
// whose sliding window of 4 keys the 12 tokens pass), a prefill of 5 tokens and then one step per
// token. Each step's attention row, in every layer and head, is the last row of a whole run over
// the same tokens to 1e-5, and its logits are the whole run's to 1e-4. A step that fails leaves
// the caches as they were; a cache past its capacity, or too big, is refused before it allocates.
// With heads switched off to their mean, steps and whole runs agree too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fixture_compare.h"
#include "fixture_files.h"
#include "model_run.h"
#include "multihead/model_loader.h"

namespace multihead::testing {
namespace {

const std::string kCheckpoints = std::string(MULTIHEAD_FIXTURES_DIR) + "/checkpoints/";
constexpr int kTokens = 12, kPrompt = 5;

Model load(const std::string& name) { return load_model(kCheckpoints + name); }

std::vector<std::string> causal_checkpoints() {
  std::vector<std::string> out;
  for (const std::string& name : subfolders(kCheckpoints)) {
    if (read_config(kCheckpoints + name).architecture->mask == Mask::causal) out.push_back(name);
  }
  return out;
}

// Seeded ids spread over the vocabulary.
std::vector<int32_t> some_ids(const Model& model, int n) {
  std::vector<int32_t> ids;
  for (int i = 0; i < n; ++i) ids.push_back(int32_t((7919u * uint32_t(i + 3)) % uint32_t(model.config().vocab_size)));
  return ids;
}

float largest_difference(const float* a, const float* b, size_t n) {
  float out = 0;
  for (size_t i = 0; i < n; ++i) out = std::max(out, std::abs(a[i] - b[i]));
  return out;
}

class GenerationTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GenerationTest, EachStepIsTheLastRowOfAWholeRun) {
  const Model model = load(GetParam());
  const std::vector<int32_t> ids = some_ids(model, kTokens);
  std::vector<KvCache> caches = model.make_caches(kTokens);
  const int heads = model.config().num_attention_heads;
  // The prefill is the whole run over the prompt.
  const std::vector<int32_t> prompt(ids.begin(), ids.begin() + kPrompt);
  std::vector<AttentionTrace> prefilled;
  model.extend(prompt, caches, [&](Stack, int, const AttentionTrace& t) { prefilled.push_back(t); });
  const CollectedRun whole_prompt = run_collecting(model, prompt);
  for (size_t l = 0; l < prefilled.size(); ++l) {
    EXPECT_EQ(prefilled[l].weights, whole_prompt.layers[l].weights) << "layer " << l;
  }
  for (int n = kPrompt + 1; n <= kTokens; ++n) {
    std::vector<AttentionTrace> step;
    const ModelRun out = model.extend({ids[size_t(n - 1)]}, caches, [&](Stack, int, const AttentionTrace& t) { step.push_back(t); });
    ASSERT_EQ(caches.front().length, n);
    const CollectedRun whole = run_collecting(model, std::vector<int32_t>(ids.begin(), ids.begin() + n));
    for (size_t l = 0; l < step.size(); ++l) {
      ASSERT_EQ(step[l].n_queries, 1);
      ASSERT_EQ(step[l].n_keys, n);
      for (int h = 0; h < heads; ++h) {
        const float* last_row = whole.layers[l].head_weights(h).data() + size_t(n - 1) * size_t(n);
        EXPECT_LT(largest_difference(step[l].head_weights(h).data(), last_row, size_t(n)), 1e-5f)
            << GetParam() << ": layer " << l << " head " << h << " at " << n << " tokens";
      }
    }
    if (model.has_lm_head()) {
      const std::vector<float> stepped = model.logits(out.hidden.data());
      const std::vector<float> full = model.logits(whole.run.hidden.data() + size_t(n - 1) * whole.run.hidden.cols());
      EXPECT_LT(largest_difference(stepped.data(), full.data(), full.size()), 1e-4f) << GetParam() << " at " << n << " tokens";
    }
  }
  // Full: one more position is refused, and the caches keep what they hold.
  EXPECT_THROW(model.extend({ids[0]}, caches), LimitError);
  EXPECT_EQ(caches.front().length, kTokens);
}

TEST_P(GenerationTest, AStepThatFailsLeavesTheCachesAsTheyWere) {
  const Model model = load(GetParam());
  const std::vector<int32_t> ids = some_ids(model, 4);
  std::vector<KvCache> caches = model.make_caches(8), fresh = model.make_caches(8);
  model.extend({ids[0], ids[1], ids[2]}, caches);
  EXPECT_THROW(model.extend({model.config().vocab_size}, caches), std::invalid_argument);  // not in the vocabulary
  EXPECT_EQ(caches.front().length, 3);
  const ModelRun after = model.extend({ids[3]}, caches);
  model.extend({ids[0], ids[1], ids[2], ids[3]}, fresh);
  // The step after the failure computes what a prefill of all four tokens computes for the last.
  const ModelRun whole = model.run(ids);
  EXPECT_LT(largest_difference(after.hidden.data(), whole.hidden.data() + 3 * whole.hidden.cols(), size_t(whole.hidden.cols())), 1e-5f);
}

// A head switched off to its mean is replaced at position t by its mean over positions 0..t, a
// running mean the caches continue: each step of a writing with two heads off is the last row of a
// whole run with them off, and a position's hidden state does not change when text follows it.
// (Before, a step's "mean" was over its one row, the head's own output, so the head stayed on.)
TEST_P(GenerationTest, MeanAblationIsTheSameInAStepAndInAWholeRun) {
  const Model model = load(GetParam());
  const ModelConfig& c = model.config();
  std::vector<Ablation> ablation(size_t(c.num_hidden_layers) * size_t(c.num_attention_heads), Ablation::none);
  ablation[1] = Ablation::mean;
  ablation.back() = Ablation::mean;
  const std::vector<int32_t> ids = some_ids(model, kTokens);
  std::vector<KvCache> caches = model.make_caches(kTokens);
  model.extend(std::vector<int32_t>(ids.begin(), ids.begin() + kPrompt), caches, {}, ablation);
  const ModelRun whole = model.run(ids, {}, ablation);
  const size_t d = size_t(whole.hidden.cols());
  for (int n = kPrompt + 1; n <= kTokens; ++n) {
    const ModelRun step = model.extend({ids[size_t(n - 1)]}, caches, {}, ablation);
    EXPECT_LT(largest_difference(step.hidden.data(), whole.hidden.data() + size_t(n - 1) * d, d), 1e-5f)
        << GetParam() << " at " << n << " tokens";
  }
  const ModelRun prompt = model.run(std::vector<int32_t>(ids.begin(), ids.begin() + kPrompt), {}, ablation);
  EXPECT_LT(largest_difference(prompt.hidden.data(), whole.hidden.data(), size_t(kPrompt) * d), 1e-5f) << GetParam();
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GenerationTest);
INSTANTIATE_TEST_SUITE_P(Checkpoints, GenerationTest, ::testing::ValuesIn(causal_checkpoints()),
                         [](const auto& info) { return test_name(info.param); });

TEST(Generation, ACacheIsSizedBeforeItIsAllocated) {
  const Model model = load("llama-smol");
  const int layers = model.config().num_hidden_layers, width = model.config().num_key_value_heads * model.config().head_dim;
  EXPECT_EQ(model.cache_bytes(10), 2.0 * 4 * layers * 10 * width);
  EXPECT_THROW(model.make_caches(0), LimitError);
  EXPECT_THROW(model.make_caches(model.config().max_tokens() + 1), LimitError);
  try {
    model.make_caches(model.config().max_tokens() + 1);
  } catch (const LimitError& e) {
    EXPECT_NE(std::string(e.what()).find("it must hold from 1 to the model's " + std::to_string(model.config().max_tokens())),
              std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace multihead::testing
