// ModelLoader and Model: how checkpoint names are read (prefixes, legacy aliases, skipped buffers,
// tied weights, duplicate biases), every error naming what was wrong, all raised from the header
// before any data where the header suffices, and the LM head's absence. The numbers of each
// architecture are architectures_test.cpp's.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "message_of.h"
#include "model_run.h"
#include "multihead/model_loader.h"
#include "reference.h"
#include "safetensors_writer.h"

namespace multihead::testing {
namespace {

const BertSize kSize{/*vocab*/ 50, /*d*/ 16, /*layers*/ 2, /*ff*/ 24, /*positions*/ 12, /*types*/ 2};
const ModelConfig kConfig = parse_model_config(bert_config_json(kSize, /*heads*/ 4));

// The loader's error for a file, from its header alone: no data is given.
std::string header_error(const ModelConfig& config, const std::map<std::string, TestTensor>& tensors, const std::string& dtype = "F32") {
  const std::vector<uint8_t> bytes = safetensors_bytes(tensors, "", dtype);
  const size_t start = SafetensorsHeader(bytes.data(), bytes.size()).data_start();
  return message_of<std::exception>([&] { ModelLoader(config, SafetensorsHeader(bytes.data(), start)); });
}

Matrix hidden_of(const Model& m, const std::vector<int32_t>& ids) { return m.run(ids).hidden; }

const std::vector<int32_t> kIds{2, 9, 3, 17};

TEST(ModelNames, ThePrefixAndLegacyLayerNormNamesReadTheSameWeights) {
  const Model plain(kConfig, SafetensorsFile(safetensors_bytes(bert_tensors(kSize))));
  auto renamed = [](std::map<std::string, TestTensor> t, const std::string& prefix, bool legacy) {
    std::map<std::string, TestTensor> out;
    for (auto& [name, x] : t) {
      std::string n = name;
      if (legacy) {
        for (const auto& [from, to] : {std::pair<std::string, std::string>{"LayerNorm.weight", "LayerNorm.gamma"}, {"LayerNorm.bias", "LayerNorm.beta"}}) {
          if (n.size() >= from.size() && n.compare(n.size() - from.size(), from.size(), from) == 0) n = n.substr(0, n.size() - from.size()) + to;
        }
      }
      out[prefix + n] = x;
    }
    return out;
  };
  for (const auto& [prefix, legacy] : {std::pair<std::string, bool>{"bert.", false}, {"", true}, {"bert.", true}}) {
    const Model other(kConfig, SafetensorsFile(safetensors_bytes(renamed(bert_tensors(kSize), prefix, legacy))));
    EXPECT_EQ(max_abs_diff(hidden_of(other, kIds), hidden_of(plain, kIds)), 0.0) << prefix << legacy;
  }
}

TEST(ModelNames, BuffersPoolerAndNextSentenceTensorsAreSkippedWhateverTheirDtype) {
  auto t = bert_tensors(kSize, "bert.");
  TensorMaker m(t, "");
  m.position_ids("bert.embeddings.position_ids", 12);
  m.linear("bert.pooler.dense", 16, 16);
  m.linear("cls.seq_relationship", 16, 2);
  t["cls.predictions.decoder.weight"] = {{50, 16}, std::vector<float>(800, 0.25f), "F64"};  // tied: not read
  const Model model(kConfig, SafetensorsFile(safetensors_bytes(t)));
  const Model plain(kConfig, SafetensorsFile(safetensors_bytes(bert_tensors(kSize))));
  EXPECT_EQ(max_abs_diff(hidden_of(model, kIds), hidden_of(plain, kIds)), 0.0);
  EXPECT_FALSE(model.has_lm_head());
}

TEST(ModelNames, EitherOrBothOfTheTwoLmHeadBiasNamesGiveTheSameLogits) {
  auto t = bert_tensors(kSize);
  add_transform_head(t, kSize, "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias");
  const Model model(kConfig, SafetensorsFile(safetensors_bytes(t)));
  const Matrix h = hidden_of(model, kIds);
  const std::vector<float> want = model.logits(h.data());
  auto decoder_only = t, both = t;
  decoder_only["cls.predictions.decoder.bias"] = decoder_only["cls.predictions.bias"];
  decoder_only.erase("cls.predictions.bias");
  both["cls.predictions.decoder.bias"] = both["cls.predictions.bias"];
  for (const auto* file : {&decoder_only, &both}) {
    const Model other(kConfig, SafetensorsFile(safetensors_bytes(*file)));
    EXPECT_TRUE(other.has_lm_head());
    EXPECT_EQ(other.logits(h.data()), want);
  }
}

TEST(ModelNames, Gpt2ReadsBareAndTransformerPrefixedNamesAndSkipsItsMaskBuffers) {
  const ModelConfig c = parse_model_config(gpt2_config_json(kSize, 4));
  const Model bare(c, SafetensorsFile(safetensors_bytes(gpt2_tensors(kSize, "", true))));
  auto prefixed = gpt2_tensors(kSize, "transformer.");
  prefixed["lm_head.weight"] = {{50, 16}, std::vector<float>(800, 0.5f), ""};  // tied to wte: not read
  const Model other(c, SafetensorsFile(safetensors_bytes(prefixed)));
  EXPECT_EQ(max_abs_diff(hidden_of(bare, kIds), hidden_of(other, kIds)), 0.0);
  EXPECT_TRUE(bare.has_lm_head());
}

TEST(ModelErrors, AnUnknownTensorIsNamedWithTheModelItIsNotPartOf) {
  auto t = bert_tensors(kSize);
  t["encoder.layer.2.output.dense.bias"] = {{16}, std::vector<float>(16, 0.0f), ""};
  EXPECT_EQ(header_error(kConfig, t), "model.safetensors: tensor 'encoder.layer.2.output.dense.bias' is not a weight of a 2-layer bert model");
  t = bert_tensors(kSize);
  t["decoder.weight"] = {{2}, {1, 2}, ""};
  EXPECT_EQ(header_error(kConfig, t), "model.safetensors: tensor 'decoder.weight' is not a weight of a 2-layer bert model");
  // A BERT file given to a DistilBERT config is refused at its first tensor.
  ModelConfig distil = parse_model_config(distilbert_config_json(kSize, 4));
  EXPECT_EQ(header_error(distil, bert_tensors(kSize)),
            "model.safetensors: tensor 'embeddings.token_type_embeddings.weight' is not a weight of a 2-layer distilbert model");
}

TEST(ModelErrors, AMissingTensorIsNamedAsTheFileWouldNameIt) {
  auto t = bert_tensors(kSize);
  t.erase("encoder.layer.1.intermediate.dense.bias");
  EXPECT_EQ(header_error(kConfig, t), "model.safetensors: the file has no tensor 'encoder.layer.1.intermediate.dense.bias'");
  t = bert_tensors(kSize, "bert.");
  t.erase("bert.embeddings.LayerNorm.weight");
  EXPECT_EQ(header_error(kConfig, t), "model.safetensors: the file has no tensor 'bert.embeddings.LayerNorm.weight'");
  auto g = gpt2_tensors(kSize, "transformer.");
  g.erase("transformer.h.1.attn.c_attn.weight");
  EXPECT_EQ(header_error(parse_model_config(gpt2_config_json(kSize, 4)), g), "model.safetensors: the file has no tensor 'transformer.h.1.attn.c_attn.weight'");
}

TEST(ModelErrors, APartialLmHeadNamesWhatItLacks) {
  auto t = bert_tensors(kSize);
  add_transform_head(t, kSize, "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias");
  t.erase("cls.predictions.transform.LayerNorm.bias");
  EXPECT_EQ(header_error(kConfig, t), "model.safetensors: the file has no tensor 'cls.predictions.transform.LayerNorm.bias' "
                                      "(it has other tensors of the language-model head)");
}

TEST(ModelErrors, AWrongShapeOrDtypeIsNamed) {
  auto t = bert_tensors(kSize);
  t["encoder.layer.0.attention.self.key.weight"].shape = {8, 32};
  EXPECT_EQ(header_error(kConfig, t), "model.safetensors: tensor 'encoder.layer.0.attention.self.key.weight' has shape [8, 32], "
                                      "expected [16, 16] from config.json");
  auto g = gpt2_tensors(kSize);
  g["h.0.attn.c_attn.weight"].shape = {48, 16};  // transposed: Conv1D stores (in, out)
  EXPECT_EQ(header_error(parse_model_config(gpt2_config_json(kSize, 4)), g),
            "model.safetensors: tensor 'h.0.attn.c_attn.weight' has shape [48, 16], expected [16, 48] from config.json");
  t = bert_tensors(kSize);
  t["embeddings.LayerNorm.bias"].dtype = "F64";
  EXPECT_EQ(header_error(kConfig, t), "model.safetensors: tensor 'embeddings.LayerNorm.bias' has dtype F64; weights must be F32, F16 or BF16");
}

TEST(ModelErrors, ANonFiniteValueIsNamedWithItsTensorAndIndexWhileStreaming) {
  for (const char* dtype : {"F32", "F16", "BF16"}) {
    auto t = bert_tensors(kSize);
    t["encoder.layer.1.attention.self.value.weight"].values[37] = NAN;  // staged (transposed) on the way
    EXPECT_EQ(message_of<std::invalid_argument>([&] { Model(kConfig, SafetensorsFile(safetensors_bytes(t, "", dtype))); }),
              "model.safetensors: tensor 'encoder.layer.1.attention.self.value.weight' value 37 is not finite") << dtype;
    t = bert_tensors(kSize);
    t["embeddings.LayerNorm.bias"].values[3] = INFINITY;  // written directly
    EXPECT_EQ(message_of<std::invalid_argument>([&] { Model(kConfig, SafetensorsFile(safetensors_bytes(t, "", dtype))); }),
              "model.safetensors: tensor 'embeddings.LayerNorm.bias' value 3 is not finite") << dtype;
    t = bert_tensors(kSize);
    t["embeddings.word_embeddings.weight"].values[5] = -INFINITY;  // a table: kept as it is when BF16
    EXPECT_EQ(message_of<std::invalid_argument>([&] { Model(kConfig, SafetensorsFile(safetensors_bytes(t, "", dtype))); }),
              "model.safetensors: tensor 'embeddings.word_embeddings.weight' value 5 is not finite") << dtype;
  }
}

TEST(ModelErrors, TruncatedOrExcessDataIsRefusedAndAFailedLoaderStaysFailed) {
  const std::vector<uint8_t> bytes = safetensors_bytes(bert_tensors(kSize), "", "F16");
  const SafetensorsHeader header(bytes.data(), bytes.size());
  ModelLoader loader(kConfig, header);
  EXPECT_EQ(loader.file_size(), bytes.size());
  loader.write(bytes.data() + header.data_start(), header.data_size() - 1);  // splits the last value
  EXPECT_EQ(message_of<std::invalid_argument>([&] { loader.finish(); }),
            "model.safetensors: the data ends after " + std::to_string(header.data_size() - 1) + " of its " +
                std::to_string(header.data_size()) + " bytes: the file is truncated");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { loader.write(bytes.data(), 1); }),
            "model.safetensors: this loader has failed or finished; start a new one");
  ModelLoader again(kConfig, header);
  const uint8_t extra[2] = {0, 0};
  again.write(bytes.data() + header.data_start(), header.data_size());
  EXPECT_EQ(message_of<std::invalid_argument>([&] { again.write(extra, 2); }),
            "model.safetensors: the data section is " + std::to_string(header.data_size()) + " bytes, but " +
                std::to_string(header.data_size() + 2) + " were written");
}

TEST(ModelErrors, LogitsWithoutAnLmHeadSayWhichTensorsAreMissing) {
  const Model model(kConfig, SafetensorsFile(safetensors_bytes(bert_tensors(kSize))));
  const Matrix h = hidden_of(model, kIds);
  EXPECT_EQ(message_of<std::invalid_argument>([&] { model.logits(h.data()); }),
            "this model has no language-model head: model.safetensors has no cls.predictions.* tensors");
  const ModelConfig distil = parse_model_config(distilbert_config_json(kSize, 4));
  const Model d(distil, SafetensorsFile(safetensors_bytes(distilbert_tensors(kSize))));
  EXPECT_EQ(message_of<std::invalid_argument>([&] { d.logits(h.data()); }),
            "this model has no language-model head: model.safetensors has no vocab_transform.*, vocab_layer_norm.* or vocab_projector.* tensors");
}

TEST(ModelErrors, BadIdsAndLayersAreRefusedBeforeComputing) {
  const Model model(kConfig, SafetensorsFile(safetensors_bytes(bert_tensors(kSize))));
  EXPECT_EQ(message_of<std::invalid_argument>([&] { model.run({}); }), "ids must hold at least 1 token, got 0");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { model.run({2, 50, 3}); }), "ids[1] is 50, outside the vocabulary 0 to 49");
  EXPECT_EQ(message_of<LimitError>([&] { model.run(std::vector<int32_t>(13, 1)); }),
            "ids has 13 tokens, above the model's limit of 12 (max_position_embeddings = 12)");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { model.layer_trace(Stack::encoder, 2, Matrix::Zero(3, 16)); }), "layer must be from 0 to 1, got 2");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { model.layer_trace(Stack::encoder, 0, Matrix::Zero(3, 15)); }), "input is (3, 15), expected (n_tokens, d_model = 16) with n_tokens ≥ 1");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { model.run({2, 3}, {}, std::vector<Ablation>(7, Ablation::zero)); }),
            "ablation has 7 entries, expected none or layers × heads = 8");
  std::vector<Ablation> bad(8, Ablation::none);
  bad[5] = Ablation(3);
  EXPECT_EQ(message_of<std::invalid_argument>([&] { model.run({2, 3}, {}, bad); }), "ablation[5] is 3, not 0 (none), 1 (zero) or 2 (mean)");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { model.layer_trace(Stack::encoder, 0, Matrix::Zero(3, 16), bad); }),
            "ablation[5] is 3, not 0 (none), 1 (zero) or 2 (mean)");
}

TEST(ModelLoading, AllocatesTheWholeModelAndOneStagingTensorBeforeAnyData) {
  const std::vector<uint8_t> bytes = safetensors_bytes(bert_tensors(kSize));
  const SafetensorsHeader header(bytes.data(), bytes.size());
  const ModelLoader loader(kConfig, header);
  // Packed matrices are padded to 16 columns: (16, 16) and (24 → 32 columns) or (16 columns).
  const size_t d = 16, ff = 24;
  const size_t layer = 4 * kernels::packed_size(d, d) + 4 * d + 4 * d + kernels::packed_size(d, ff) + ff + kernels::packed_size(ff, d) + d;
  EXPECT_EQ(loader.weight_bytes(), 4 * ((50 + 12 + 2) * d + 2 * d + 2 * layer));
  EXPECT_EQ(loader.staging_bytes(), 4 * d * ff);  // the largest Linear weight, one at a time
  EXPECT_NEAR(double(loader.weight_bytes()), model_weight_bytes(kConfig), 0.25 * model_weight_bytes(kConfig));
}

TEST(ModelLoading, ABf16FileKeepsItsMatricesAndTablesAsBfloat16AndWidensTheRest) {
  // The same model from a BF16 file: its packed matrices, word embeddings (a table) at 2 bytes a
  // value; the position and token-type tables, biases and norms, as floats. Staging holds halves.
  const std::vector<uint8_t> bytes = safetensors_bytes(bert_tensors(kSize), "", "BF16");
  const ModelLoader loader(kConfig, SafetensorsHeader(bytes.data(), bytes.size()));
  const size_t d = 16, ff = 24;
  const size_t matrices = 4 * kernels::packed_size(d, d) + kernels::packed_size(d, ff) + kernels::packed_size(ff, d);
  const size_t vectors = 4 * d + 4 * d + ff + d;
  EXPECT_EQ(loader.weight_bytes(), 2 * 50 * d + 4 * ((12 + 2) * d + 2 * d) + 2 * (2 * matrices + 4 * vectors));
  EXPECT_EQ(loader.staging_bytes(), 2 * d * ff);
}

}  // namespace
}  // namespace multihead::testing
