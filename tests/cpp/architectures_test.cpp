// Every architecture (BERT with legacy names, BERT without a head in F16, DistilBERT, RoBERTa in
// BF16, GPT-2 with its buffers and with the "transformer." prefix in F16), each a small checkpoint
// written with Hugging Face's names, against the float64 reference of reference_models.h: every
// layer's attention and input and the hidden states to 1e-4, the logits to 1e-4 of the largest
// |logit|. Then streaming: the data in chunks of 1, 3, 7 and 4096 bytes, or whole, gives identical
// models, and layer_trace recomputes exactly what the hook saw, with heads ablated or not.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "model_run.h"
#include "multihead/model_loader.h"
#include "reference_models.h"

namespace multihead::testing {
namespace {

const BertSize kSize{/*vocab*/ 40, /*d*/ 16, /*layers*/ 2, /*ff*/ 24, /*positions*/ 12, /*types*/ 2};
const BertSize kRobertaSize{40, 16, 2, 24, 14, 1};  // 14 rows, positions from 2: 12 tokens
constexpr int kHeads = 4;

struct Checkpoint {
  std::string name;
  std::string config;
  std::vector<uint8_t> bytes;
  std::function<ReferenceModel(const Reference&, const std::vector<int32_t>&)> reference;
  bool head;
};

std::map<std::string, TestTensor> with(std::map<std::string, TestTensor> t, const std::function<void(std::map<std::string, TestTensor>&)>& add) {
  add(t);
  return t;
}

std::vector<Checkpoint> checkpoints() {
  std::vector<Checkpoint> out;
  const auto bert_legacy = with(bert_tensors(kSize, "bert.", true), [](auto& t) {
    add_transform_head(t, kSize, "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias", true);
    TensorMaker m(t, "");
    m.linear("bert.pooler.dense", kSize.d, kSize.d);
    m.linear("cls.seq_relationship", kSize.d, 2);
  });
  out.push_back({"BertLegacy", bert_config_json(kSize, kHeads), safetensors_bytes(bert_legacy),
                 [](const Reference& r, const std::vector<int32_t>& ids) {
                   ReferenceNames n = bert_names("bert.");
                   n.norm_weight = "gamma", n.norm_bias = "beta";
                   n.head_dense = "cls.predictions.transform.dense", n.head_norm = "cls.predictions.transform.LayerNorm";
                   n.head_bias = "cls.predictions.bias";
                   return r.post_ln(n, ids, 2, kHeads, 1e-12, 0, false, false);
                 },
                 true});
  const auto bert_plain = with(bert_tensors(kSize), [](auto& t) { TensorMaker(t, "").position_ids("embeddings.position_ids", kSize.positions); });
  out.push_back({"BertPlainF16", bert_config_json(kSize, kHeads), safetensors_bytes(bert_plain, "", "F16"),
                 [](const Reference& r, const std::vector<int32_t>& ids) { return r.post_ln(bert_names(""), ids, 2, kHeads, 1e-12, 0, false, false); },
                 false});
  const auto distil = with(distilbert_tensors(kSize), [](auto& t) {
    add_transform_head(t, kSize, "vocab_transform", "vocab_layer_norm", "vocab_projector.bias");
  });
  out.push_back({"DistilBert", distilbert_config_json(kSize, kHeads), safetensors_bytes(distil),
                 [](const Reference& r, const std::vector<int32_t>& ids) {
                   ReferenceNames n = distilbert_names("distilbert.");
                   n.head_dense = "vocab_transform", n.head_norm = "vocab_layer_norm", n.head_bias = "vocab_projector.bias";
                   return r.post_ln(n, ids, 2, kHeads, 1e-12, 0, false, false);
                 },
                 true});
  const auto roberta = with(bert_tensors(kRobertaSize, "roberta."), [](auto& t) {
    TensorMaker(t, "").position_ids("roberta.embeddings.position_ids", kRobertaSize.positions);
    add_transform_head(t, kRobertaSize, "lm_head.dense", "lm_head.layer_norm", "lm_head.bias");
    t["lm_head.decoder.bias"] = t["lm_head.bias"];
  });
  // hidden_act gelu_new: the layers use the tanh form, and RoBERTa's head still uses erf.
  out.push_back({"RobertaBF16",
                 bert_config_json(kRobertaSize, kHeads, R"("pad_token_id": 1, "hidden_act": "gelu_new", "layer_norm_eps": 1e-5)", "roberta"),
                 safetensors_bytes(roberta, "", "BF16"),
                 [](const Reference& r, const std::vector<int32_t>& ids) {
                   ReferenceNames n = bert_names("roberta.");
                   n.head_dense = "lm_head.dense", n.head_norm = "lm_head.layer_norm", n.head_bias = "lm_head.bias";
                   return r.post_ln(n, ids, 2, kHeads, 1e-5, 2, true, false);
                 },
                 true});
  out.push_back({"Gpt2Legacy", gpt2_config_json(kSize, kHeads), safetensors_bytes(gpt2_tensors(kSize, "", true)),
                 [](const Reference& r, const std::vector<int32_t>& ids) { return r.gpt2("", ids, 2, kHeads, 1e-5); }, true});
  out.push_back({"Gpt2NewF16", gpt2_config_json(kSize, kHeads), safetensors_bytes(gpt2_tensors(kSize, "transformer."), "", "F16"),
                 [](const Reference& r, const std::vector<int32_t>& ids) { return r.gpt2("transformer.", ids, 2, kHeads, 1e-5); }, true});
  return out;
}

// The tensors as the file stores them (F16/BF16 rounded), for the reference.
std::map<std::string, TestTensor> stored_tensors(const std::vector<uint8_t>& bytes) {
  const SafetensorsFile file(bytes);
  std::map<std::string, TestTensor> t;
  for (const auto& [name, info] : file.tensors()) {
    if (info.dtype == "F32" || info.dtype == "F16" || info.dtype == "BF16") t[name] = {info.shape, file.read(name), ""};
  }
  return t;
}

// A model loaded through ModelLoader from the header alone, then the data in chunks of `chunk` bytes.
Model load_in_chunks(const ModelConfig& config, const std::vector<uint8_t>& bytes, size_t chunk) {
  const SafetensorsHeader header(bytes.data(), bytes.size());
  const size_t start = header.data_start();
  ModelLoader loader(config, SafetensorsHeader(bytes.data(), start));
  for (size_t at = start; at < bytes.size(); at += chunk) loader.write(bytes.data() + at, std::min(chunk, bytes.size() - at));
  return loader.finish();
}

class Architectures : public ::testing::TestWithParam<Checkpoint> {};

TEST_P(Architectures, MatchTheirFloat64ReferenceLayerByLayer) {
  const Checkpoint& c = GetParam();
  const ModelConfig config = parse_model_config(c.config);
  const Model model = load_in_chunks(config, c.bytes, 4096);
  const auto tensors = stored_tensors(c.bytes);
  const Reference reference(tensors);
  EXPECT_EQ(model.has_lm_head(), c.head);
  for (const std::vector<int32_t>& ids : {std::vector<int32_t>{2, 17, 5, 39, 3}, std::vector<int32_t>{7},
                                          std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0}}) {
    const int n = int(ids.size());
    const CollectedRun run = run_collecting(model, ids);
    const ReferenceModel want = c.reference(reference, ids);
    ASSERT_EQ(run.layers.size(), 2u);
    ASSERT_EQ(run.run.inputs.size(), 2u);
    double attention = 0, inputs = 0;
    for (int l = 0; l < 2; ++l) {
      inputs = std::max(inputs, max_abs_diff(run.run.inputs[size_t(l)], want.inputs[size_t(l)]));
      for (int h = 0; h < kHeads; ++h) attention = std::max(attention, max_abs_diff(head_matrix(run.layers[size_t(l)].weights, h, n), want.attention[size_t(l)][size_t(h)]));
    }
    EXPECT_LT(attention, 1e-4) << "n=" << n;
    EXPECT_LT(inputs, 1e-4) << "n=" << n;
    EXPECT_LT(max_abs_diff(run.run.hidden, want.hidden), 1e-4) << "n=" << n;
    if (!c.head) continue;
    for (int i = 0; i < n; ++i) {
      const std::vector<float> logits = model.logits(run.run.hidden.data() + size_t(i) * kSize.d);
      ASSERT_EQ(logits.size(), size_t(kSize.vocab));
      const MatrixD got = to_double(logits, 1, logits.size());
      const double scale = want.logits.row(i).cwiseAbs().maxCoeff();
      EXPECT_LT(max_abs_diff(got, want.logits.row(i)), 1e-4 * scale) << "position " << i << ", n=" << n;
    }
  }
}

TEST_P(Architectures, StreamInAnyChunkSizeToIdenticalWeights) {
  const Checkpoint& c = GetParam();
  const ModelConfig config = parse_model_config(c.config);
  const Model whole(config, SafetensorsFile(c.bytes));
  const std::vector<int32_t> ids{3, 1, 4, 1, 5, 9, 2, 6};
  const CollectedRun want = run_collecting(whole, ids);
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, size_t{4096}, c.bytes.size()}) {
    const Model model = load_in_chunks(config, c.bytes, chunk);
    const CollectedRun got = run_collecting(model, ids);
    EXPECT_EQ(max_abs_diff(got.run.hidden, want.run.hidden), 0.0) << "chunk " << chunk;
    for (size_t l = 0; l < got.layers.size(); ++l) EXPECT_EQ(got.layers[l].weights, want.layers[l].weights) << "chunk " << chunk;
    if (c.head) EXPECT_EQ(model.logits(got.run.hidden.data()), whole.logits(want.run.hidden.data())) << "chunk " << chunk;
  }
}

TEST_P(Architectures, LayerTraceRecomputesWhatTheHookSaw) {
  const Checkpoint& c = GetParam();
  const Model model(parse_model_config(c.config), SafetensorsFile(c.bytes));
  std::vector<Ablation> ablation(2 * kHeads, Ablation::none);
  ablation[1] = Ablation::zero, ablation[kHeads + 2] = Ablation::mean;
  for (const std::vector<Ablation>& heads : {std::vector<Ablation>{}, ablation}) {
    const CollectedRun run = run_collecting(model, {5, 6, 7, 8}, heads);
    for (int l = 0; l < 2; ++l) {
      const AttentionTrace t = model.layer_trace(Stack::encoder, l, run.run.inputs[size_t(l)], heads);
      const AttentionTrace& hook = run.layers[size_t(l)];
      EXPECT_EQ(t.weights, hook.weights);
      EXPECT_EQ(t.scores, hook.scores);
      for (const auto& [a, b] : {std::pair(&t.q, &hook.q), std::pair(&t.k, &hook.k), std::pair(&t.v, &hook.v),
                                 std::pair(&t.concat, &hook.concat), std::pair(&t.output, &hook.output)}) {
        EXPECT_EQ(max_abs_diff(*a, *b), 0.0) << "layer " << l;
      }
    }
    // One trace alive: every layer's weights were handed over in the same reused buffer.
    EXPECT_EQ(run.buffers[0], run.buffers[1]);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryArchitecture, Architectures, ::testing::ValuesIn(checkpoints()),
                         [](const auto& info) { return info.param.name; });

TEST(Architectures, Gpt2IsCausalAndRobertaCountsPositionsFromPaddingPlusOne) {
  const Checkpoint gpt2 = checkpoints()[4];
  const Model model(parse_model_config(gpt2.config), SafetensorsFile(gpt2.bytes));
  const CollectedRun run = run_collecting(model, {1, 2, 3});
  for (int h = 0; h < kHeads; ++h) {
    const auto w = head_matrix(run.layers[0].weights, h, 3);
    EXPECT_EQ(w(0, 1), 0.0f);
    EXPECT_EQ(w(0, 2), 0.0f);
    EXPECT_EQ(w(1, 2), 0.0f);
    EXPECT_FLOAT_EQ(w(0, 0), 1.0f);
  }
  const ModelConfig roberta = parse_model_config(checkpoints()[3].config);
  EXPECT_EQ(roberta.position_offset, 2);
  EXPECT_EQ(roberta.max_tokens(), 12);
  const Model r(roberta, SafetensorsFile(checkpoints()[3].bytes));
  EXPECT_NO_THROW(r.run(std::vector<int32_t>(12, 1)));
  EXPECT_THROW(r.run(std::vector<int32_t>(13, 1)), LimitError);
}

}  // namespace
}  // namespace multihead::testing
