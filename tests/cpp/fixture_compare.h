// Test helper: one model against one PyTorch fixture case folder (case.txt, ids.i32,
// attention.f32, hidden.f32, and where present inputs.f32 and logits.f32): every layer's attention
// and input and the hidden states to 1e-4 absolute, the logits to 1e-3 of the case's largest
// |logit|. A case without logits.f32 from a model that has an LM head checks nothing about it; a
// model without one must say so from logits(). Used by the checkpoint and the built-in model tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "fixture_files.h"
#include "model_run.h"
#include "multihead/kernels.h"
#include "multihead/model.h"
#include "reference.h"

namespace multihead::testing {

// `dir` ends with '/'; `name` labels the printed line.
inline void expect_matches_fixture(const Model& model, const std::string& dir, const std::string& name) {
  auto v = case_fields(dir + "case.txt");
  const int n = v["n_tokens"], layers = v["n_layers"], heads = v["n_heads"], d = v["d_model"], vocab = v["vocab_size"];
  ASSERT_GT(n, 0) << "no n_tokens in " << dir << "case.txt";
  const auto ids = read_values<int32_t>(dir + "ids.i32", size_t(n));
  const auto attention = read_values<float>(dir + "attention.f32", size_t(layers) * heads * n * n);
  const auto hidden = read_values<float>(dir + "hidden.f32", size_t(n) * d);
  const bool has_inputs = std::filesystem::exists(dir + "inputs.f32");
  const auto inputs = has_inputs ? read_values<float>(dir + "inputs.f32", size_t(layers) * n * d) : std::vector<float>();

  // An ablated case says which heads PyTorch switched off: 0 on, 1 zeroed, 2 replaced by its mean.
  std::vector<Ablation> ablation;
  if (std::filesystem::exists(dir + "ablation.u8")) {
    for (uint8_t code : read_values<uint8_t>(dir + "ablation.u8", size_t(layers) * heads)) ablation.push_back(Ablation(code));
  }

  const CollectedRun run = run_collecting(model, ids, ablation);
  ASSERT_EQ(int(run.layers.size()), layers);
  double attention_diff = 0, inputs_diff = 0, logits_diff = 0;
  for (int l = 0; l < layers; ++l) {
    attention_diff = std::max(attention_diff, max_abs_diff(ConstMatrixMap(run.layers[size_t(l)].weights.data(), heads * n, n),
                                                           ConstMatrixMap(attention.data() + size_t(l) * heads * n * n, heads * n, n)));
    if (has_inputs) {
      inputs_diff = std::max(inputs_diff, max_abs_diff(run.run.inputs[size_t(l)], ConstMatrixMap(inputs.data() + size_t(l) * n * d, n, d)));
    }
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
  } else if (!model.has_lm_head()) {
    EXPECT_THROW(model.logits(run.run.hidden.data()), std::invalid_argument);
  }
  std::printf("[ fixture  ] %-28s %-8s max |diff| attention %.3g, inputs %.3g, hidden %.3g, logits/max %.3g\n", name.c_str(),
              kernels::active_kernels().name, attention_diff, inputs_diff, hidden_diff, logits_diff);
}

}  // namespace multihead::testing
