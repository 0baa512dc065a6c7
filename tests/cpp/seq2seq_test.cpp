// The encoder–decoder checkpoints (tests/fixtures/seq2seq, made by tools/make_seq2seq_checkpoints.py:
// small random T5, Flan-T5, BART and Marian models in their real Hub layouts) against their float64
// PyTorch references (tools/seq2seq_models.py), each loaded through ModelLoader in 4 KiB chunks:
// the encoder's, the decoder's and the cross-attention's weights of every layer to 1e-5, every
// layer's input and the hidden states to 1e-4, the logits to 1e-4 of the case's largest |logit|;
// layer_trace recomputes each attention exactly; a writing with the KV cache and the cross keys
// projected once gives the whole decoder's rows (to 1e-5: one row's sums round apart from a
// block's in the SIMD GEMMs) and the reference's 32 greedy tokens. Also the
// computed positions: T5's buckets against Hugging Face's function, Marian's table against its
// formula.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "fixture_files.h"
#include "multihead/generation.h"
#include "multihead/kernels.h"
#include "multihead/positions.h"
#include "reference.h"

namespace multihead::testing {
namespace {

const std::string kSeq2Seq = std::string(MULTIHEAD_FIXTURES_DIR) + "/seq2seq/";

nlohmann::json read_json(const std::string& path) {
  const std::vector<uint8_t> text = read_file(path);
  return nlohmann::json::parse(std::string(text.begin(), text.end()));
}

std::vector<std::string> cases() {
  std::vector<std::string> out;
  for (const std::string& checkpoint : subfolders(kSeq2Seq)) {
    for (const std::string& c : subfolders(kSeq2Seq + checkpoint + "/cases")) out.push_back(checkpoint + "/" + c);
  }
  return out;
}

// Every attention of a pass, by stack, in the order the hook saw them.
struct Collected {
  std::vector<AttentionTrace> traces[kStackCount];
  LayerHook hook() {
    return [this](Stack s, int layer, const AttentionTrace& t) {
      EXPECT_EQ(int(traces[size_t(s)].size()), layer);
      traces[size_t(s)].push_back(t);
    };
  }
};

// The largest difference between a stack's attention weights and the fixture's (L, H, nq, nk).
double attention_diff(const std::vector<AttentionTrace>& traces, const std::vector<float>& want, int heads, int nq, int nk) {
  double diff = 0;
  for (size_t l = 0; l < traces.size(); ++l) {
    diff = std::max(diff, max_abs_diff(ConstMatrixMap(traces[l].weights.data(), heads * nq, nk),
                                       ConstMatrixMap(want.data() + l * size_t(heads * nq * nk), heads * nq, nk)));
  }
  return diff;
}

double rows_diff(const std::vector<Matrix>& got, const std::vector<float>& want, int n, int d) {
  double diff = 0;
  for (size_t l = 0; l < got.size(); ++l) diff = std::max(diff, max_abs_diff(got[l], ConstMatrixMap(want.data() + l * size_t(n * d), n, d)));
  return diff;
}

class Seq2SeqFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqFixture, MatchesThePyTorchReference) {
  const std::string checkpoint = GetParam().substr(0, GetParam().find('/'));
  const std::string dir = kSeq2Seq + GetParam().substr(0, checkpoint.size()) + "/cases/" + GetParam().substr(checkpoint.size() + 1) + "/";
  const Model model = load_streaming(kSeq2Seq + checkpoint);
  const ModelConfig& c = model.config();
  ASSERT_TRUE(model.encoder_decoder());
  auto v = case_fields(dir + "case.txt");
  const int ns = v["n_source"], nt = v["n_target"], vocab = v["vocab_size"], d = c.hidden_size, h = c.num_attention_heads;
  const int L = c.num_hidden_layers, Ld = c.num_decoder_layers;
  const auto source = read_values<int32_t>(dir + "source.i32", size_t(ns));
  const auto target = read_values<int32_t>(dir + "target.i32", size_t(nt));
  std::vector<Ablation> ablation;
  if (std::filesystem::exists(dir + "ablation.u8")) {
    for (uint8_t code : read_values<uint8_t>(dir + "ablation.u8", size_t(L + 2 * Ld) * h)) ablation.push_back(Ablation(code));
  }

  Collected seen;
  const ModelRun encoder = model.run(source, seen.hook(), ablation);
  const ModelRun decoder = model.run_decoder(target, encoder.hidden, seen.hook(), ablation);
  ASSERT_EQ(int(seen.traces[0].size()), L);
  ASSERT_EQ(int(seen.traces[1].size()), Ld);
  ASSERT_EQ(int(seen.traces[2].size()), Ld);
  const double encoder_diff = attention_diff(seen.traces[0], read_values<float>(dir + "encoder_attention.f32", size_t(L * h * ns * ns)), h, ns, ns);
  const double decoder_diff = attention_diff(seen.traces[1], read_values<float>(dir + "decoder_attention.f32", size_t(Ld * h * nt * nt)), h, nt, nt);
  const double cross_diff = attention_diff(seen.traces[2], read_values<float>(dir + "cross_attention.f32", size_t(Ld * h * nt * ns)), h, nt, ns);
  EXPECT_LT(encoder_diff, 1e-5);
  EXPECT_LT(decoder_diff, 1e-5);
  EXPECT_LT(cross_diff, 1e-5);
  double inputs_diff = rows_diff(encoder.inputs, read_values<float>(dir + "encoder_inputs.f32", size_t(L * ns * d)), ns, d);
  inputs_diff = std::max(inputs_diff, rows_diff(decoder.inputs, read_values<float>(dir + "decoder_inputs.f32", size_t(Ld * nt * d)), nt, d));
  inputs_diff = std::max(inputs_diff, rows_diff(decoder.cross_inputs, read_values<float>(dir + "cross_inputs.f32", size_t(Ld * nt * d)), nt, d));
  const double hidden_diff = std::max(
      max_abs_diff(encoder.hidden, ConstMatrixMap(read_values<float>(dir + "encoder_hidden.f32", size_t(ns * d)).data(), ns, d)),
      max_abs_diff(decoder.hidden, ConstMatrixMap(read_values<float>(dir + "decoder_hidden.f32", size_t(nt * d)).data(), nt, d)));
  EXPECT_LT(inputs_diff, 1e-4);
  EXPECT_LT(hidden_diff, 1e-4);
  const auto logits = read_values<float>(dir + "logits.f32", size_t(nt * vocab));
  const ConstMatrixMap want(logits.data(), nt, vocab);
  const double scale = want.cwiseAbs().maxCoeff();
  double logits_diff = 0;
  for (int i = 0; i < nt; ++i) {
    const std::vector<float> got = model.logits(decoder.hidden.data() + size_t(i) * d);
    logits_diff = std::max(logits_diff, max_abs_diff(ConstMatrixMap(got.data(), 1, vocab), want.row(i)) / scale);
  }
  EXPECT_LT(logits_diff, 1e-4);
  std::printf("[ seq2seq  ] %-20s %-8s max |diff| encoder %.3g, decoder %.3g, cross %.3g, inputs %.3g, hidden %.3g, logits/max %.3g\n",
              GetParam().c_str(), kernels::active_kernels().name, encoder_diff, decoder_diff, cross_diff, inputs_diff, hidden_diff,
              logits_diff);

  // Each attention again from its kept input, as a view asks for it later: the same numbers.
  for (int l = 0; l < L; ++l) {
    EXPECT_EQ(model.layer_trace(Stack::encoder, l, encoder.inputs[size_t(l)], ablation).weights, seen.traces[0][size_t(l)].weights);
  }
  for (int l = 0; l < Ld; ++l) {
    EXPECT_EQ(model.layer_trace(Stack::decoder, l, decoder.inputs[size_t(l)], ablation).weights, seen.traces[1][size_t(l)].weights);
    const AttentionTrace cross = model.layer_trace(Stack::cross, l, decoder.cross_inputs[size_t(l)], ablation, &encoder.hidden);
    EXPECT_EQ(cross.weights, seen.traces[2][size_t(l)].weights);
    EXPECT_EQ(cross.concat, seen.traces[2][size_t(l)].concat);
  }

  // Written one token at a time, with the decoder's KV cache and the cross-attention's keys and
  // values projected once: each step's rows are the whole pass's last rows.
  Generation writing(model, nt, ablation, &encoder.hidden);
  for (int n = 1; n <= nt; ++n) {
    Collected step;
    const ModelRun out = writing.extend({target[size_t(n - 1)]}, step.hook());
    ASSERT_EQ(step.traces[2].size(), size_t(Ld));
    for (int l = 0; l < Ld; ++l) {
      const AttentionTrace& whole = seen.traces[2][size_t(l)];
      for (int i = 0; i < h; ++i) {
        EXPECT_LT(max_abs_diff(step.traces[2][size_t(l)].head_weights(i), whole.head_weights(i).row(n - 1)), 1e-5) << "cross layer " << l;
        EXPECT_LT(max_abs_diff(step.traces[1][size_t(l)].head_weights(i), seen.traces[1][size_t(l)].head_weights(i).row(n - 1).leftCols(n)), 1e-5);
      }
    }
    EXPECT_LT(max_abs_diff(out.hidden, decoder.hidden.row(n - 1)), 1e-5);
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Seq2SeqFixture);
INSTANTIATE_TEST_SUITE_P(Checkpoints, Seq2SeqFixture, ::testing::ValuesIn(cases()), [](const auto& info) { return test_name(info.param); });

class Seq2SeqGreedy : public ::testing::TestWithParam<std::string> {};

// The reference's 32 greedy ids after the start ids, written with the caches (banned ids, Marian's
// pad, never chosen).
TEST_P(Seq2SeqGreedy, WritesTheReferencesTokens) {
  const std::string folder = kSeq2Seq + GetParam();
  const Model model = load_streaming(folder);
  const nlohmann::json greedy = read_json(folder + "/greedy.json");
  const std::vector<int32_t> source = greedy["source"].get<std::vector<int32_t>>(), start = greedy["start"].get<std::vector<int32_t>>();
  const std::vector<int32_t> banned = greedy["banned"].get<std::vector<int32_t>>(), want = greedy["ids"].get<std::vector<int32_t>>();
  const Matrix memory = model.run(source).hidden;
  Generation writing(model, int(start.size() + want.size()), {}, &memory);
  ModelRun out = writing.extend(start);
  std::vector<int32_t> written;
  for (size_t i = 0; i < want.size(); ++i) {
    std::vector<float> logits = model.logits(out.hidden.data() + (out.hidden.rows() - 1) * out.hidden.cols());
    for (int32_t b : banned) logits[size_t(b)] = -INFINITY;
    written.push_back(int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    out = writing.extend({written.back()});
  }
  EXPECT_EQ(written, want);
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, Seq2SeqGreedy, ::testing::ValuesIn(subfolders(kSeq2Seq)),
                         [](const auto& info) { return test_name(info.param); });

TEST(Positions, T5BucketsAreHuggingFacesAtEveryOffset) {
  const nlohmann::json table = read_json(kSeq2Seq + "t5-buckets.json");
  const int first = table["first_offset"], buckets = table["num_buckets"], distance = table["max_distance"];
  for (const bool bidirectional : {true, false}) {
    const std::vector<int> want = table[bidirectional ? "bidirectional" : "causal"].get<std::vector<int>>();
    for (size_t i = 0; i < want.size(); ++i) {
      const int offset = first + int(i);
      ASSERT_EQ(relative_position_bucket(offset, bidirectional, buckets, distance), want[i])
          << "offset " << offset << (bidirectional ? " bidirectional" : " causal");
    }
  }
  // The offsets the issue names, as Hugging Face's function gives them (key − query).
  const int named[] = {1, 7, 8, 15, 16, 100, 127, 128, 1000};
  const int after[] = {17, 23, 24, 25, 26, 31, 31, 31, 31}, before[] = {1, 7, 8, 9, 10, 15, 15, 15, 15};
  const int causal_before[] = {1, 7, 8, 15, 16, 30, 31, 31, 31};
  for (size_t i = 0; i < std::size(named); ++i) {
    EXPECT_EQ(relative_position_bucket(named[i], true, 32, 128), after[i]) << named[i];
    EXPECT_EQ(relative_position_bucket(-named[i], true, 32, 128), before[i]) << -named[i];
    EXPECT_EQ(relative_position_bucket(named[i], false, 32, 128), 0) << named[i];
    EXPECT_EQ(relative_position_bucket(-named[i], false, 32, 128), causal_before[i]) << -named[i];
  }
}

TEST(Positions, MariansTableIsTheSinusoidsHalfAndHalf) {
  constexpr int kRows = 64, kWidth = 512;
  std::vector<float> table(size_t(kRows) * kWidth);
  sinusoidal_positions(kRows, kWidth, table.data());
  EXPECT_NEAR(table[kWidth + 0], 0.841471, 1e-6);  // sin(1)
  EXPECT_NEAR(table[kWidth + 1], 0.821856, 1e-6);  // sin(1 / 10000^(2/512))
  for (int p = 0; p < kRows; ++p) {
    for (int c = 0; c < kWidth / 2; ++c) {
      const double angle = p / std::pow(10000.0, 2.0 * c / kWidth);
      ASSERT_NEAR(table[size_t(p) * kWidth + size_t(c)], std::sin(angle), 1e-7) << p << ", " << c;
      ASSERT_NEAR(table[size_t(p) * kWidth + size_t(kWidth / 2 + c)], std::cos(angle), 1e-7) << p << ", " << c;
    }
  }
}

}  // namespace
}  // namespace multihead::testing
