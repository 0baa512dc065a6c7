// Writes the fuzzers' generated seeds: tiny valid models (BERT in F32, F16, BF16, with and without
// the "bert." prefix and its legacy names and head, a one-layer one; DistilBERT, RoBERTa and GPT-2
// with their heads and buffers) and a few edge-case safetensors files, built with the test
// helper tests/cpp/safetensors_writer.h, each as a file and in the framed form of fuzz_inputs.h,
// plus the default model joined into the whole-model target's input format. Usage: make_fuzz_seeds OUT_DIR DEFAULT_MODEL_DIR; it writes
// OUT_DIR/{safetensors,config,model}/. It commits nothing: seeds are built into the build folder,
// so the repository keeps this generator instead of binary files. Hand-written config seeds are
// in tests/fuzz/seeds/config.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../cpp/safetensors_writer.h"
#include "fuzz_inputs.h"

namespace fs = std::filesystem;
using namespace multihead::testing;

namespace {

void write(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::vector<uint8_t> read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_fuzz_seeds OUT_DIR DEFAULT_MODEL_DIR\n");
    return 2;
  }
  const fs::path out = argv[1], default_model = argv[2];
  for (const char* target : {"safetensors", "config", "model"}) fs::create_directories(out / target);

  struct Tiny {
    const char* name;
    BertSize size;
    int heads;
    const char* dtype;
    const char* prefix;
  };
  const Tiny tinies[] = {
      {"tiny-f32", {12, 8, 2, 12, 10, 2}, 2, "F32", ""},
      {"tiny-f16", {12, 8, 2, 12, 10, 2}, 2, "F16", ""},
      {"tiny-bf16", {12, 8, 2, 12, 10, 2}, 2, "BF16", ""},
      {"tiny-bert-prefix", {12, 8, 2, 12, 10, 2}, 4, "F32", "bert."},
      {"smallest", {4, 4, 1, 4, 4, 1}, 2, "F16", ""},
  };
  for (const Tiny& t : tinies) {
    const std::vector<uint8_t> weights = safetensors_bytes(bert_tensors(t.size, t.prefix), "", t.dtype);
    const std::string config = bert_config_json(t.size, t.heads);
    write(out / "safetensors" / (std::string(t.name) + ".safetensors"), weights);
    write(out / "safetensors" / (std::string(t.name) + ".framed"), multihead::fuzz::frame_safetensors(weights));
    write(out / "config" / (std::string(t.name) + ".json"), config);
    write(out / "model" / (std::string(t.name) + ".bin"), multihead::fuzz::join_model_input(config, weights));
  }
  // The other architectures, each with its LM head and the buffers real files carry.
  const BertSize s{12, 8, 2, 12, 10, 2}, roberta_size{12, 8, 2, 12, 12, 1};
  auto bert_head = bert_tensors(s, "bert.", true);
  add_transform_head(bert_head, s, "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias", true);
  TensorMaker(bert_head, "").position_ids("bert.embeddings.position_ids", s.positions);
  auto distil = distilbert_tensors(s);
  add_transform_head(distil, s, "vocab_transform", "vocab_layer_norm", "vocab_projector.bias");
  auto roberta = bert_tensors(roberta_size, "roberta.");
  add_transform_head(roberta, roberta_size, "lm_head.dense", "lm_head.layer_norm", "lm_head.bias");
  TensorMaker(roberta, "").position_ids("roberta.embeddings.position_ids", roberta_size.positions);
  const struct {
    const char* name;
    std::string config;
    std::vector<uint8_t> weights;
  } others[] = {
      {"bert-legacy-head", bert_config_json(s, 2), safetensors_bytes(bert_head)},
      {"distilbert", distilbert_config_json(s, 2), safetensors_bytes(distil, "", "F16")},
      {"roberta", bert_config_json(roberta_size, 2, R"("pad_token_id": 1, "layer_norm_eps": 1e-5)", "roberta"), safetensors_bytes(roberta, "", "BF16")},
      {"gpt2-legacy", gpt2_config_json(s, 2), safetensors_bytes(gpt2_tensors(s, "", true))},
      {"gpt2-new", gpt2_config_json(s, 2), safetensors_bytes(gpt2_tensors(s, "transformer."), "", "F16")},
  };
  for (const auto& o : others) {
    write(out / "safetensors" / (std::string(o.name) + ".framed"), multihead::fuzz::frame_safetensors(o.weights));
    write(out / "config" / (std::string(o.name) + ".json"), o.config);
    write(out / "model" / (std::string(o.name) + ".bin"), multihead::fuzz::join_model_input(o.config, o.weights));
  }
  // Shapes the model never uses but the reader must handle: a scalar, an empty tensor, metadata.
  const std::vector<uint8_t> edges = safetensors_bytes({{"scalar", {{}, {2.5f}}}, {"empty", {{0, 3}, {}}}, {"row", {{1, 3}, {1, 2, 3}}}},
                                                       R"("__metadata__":{"format":"pt","note":"\u00e9\"[{"})");
  write(out / "safetensors" / "scalar-empty-metadata.safetensors", edges);
  write(out / "safetensors" / "scalar-empty-metadata.framed", multihead::fuzz::frame_safetensors(edges));
  // The default model: the reader and the whole-model target see it whole once (tools/fuzz.js runs
  // these files before fuzzing), then fuzz its first -max_len bytes, its header.
  const std::vector<uint8_t> weights = read(default_model / "model.safetensors");
  const std::vector<uint8_t> config = read(default_model / "config.json");
  write(out / "safetensors" / "default.framed", multihead::fuzz::frame_safetensors(weights));
  write(out / "model" / "default.bin", multihead::fuzz::join_model_input(std::string(config.begin(), config.end()), weights));
  return 0;
}
