// Test helper: writes safetensors bytes from named float tensors, so tests (and the fuzzers' seed
// generator, tests/fuzz/make_seeds.cpp) can build small models and deliberately broken files
// without any file on disk. It writes what the format allows, not every way to break it: broken
// files are written by hand with raw_safetensors.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace multihead::testing {

struct TestTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// IEEE half precision, rounding toward zero; values beyond the range become ±infinity. Good enough
// for writing test files, which only need some F16 data, not a correctly rounded one.
inline uint16_t float_to_half(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  const int exponent = int((bits >> 23) & 0xff) - 127 + 15;
  const uint32_t mantissa = bits & 0x7fffff;
  if (std::isnan(f)) return uint16_t(sign | 0x7e00);
  if (exponent >= 0x1f) return uint16_t(sign | 0x7c00);
  if (exponent <= 0) {  // subnormal half, or zero
    if (exponent < -10) return sign;
    return uint16_t(sign | ((mantissa | 0x800000) >> (14 - exponent)));
  }
  return uint16_t(sign | (exponent << 10) | (mantissa >> 13));
}

// Header as the format describes it, followed by the data in name order. dtype is "F32", "F16"
// or "BF16" (BF16 keeps a float's top 16 bits).
inline std::vector<uint8_t> safetensors_bytes(const std::map<std::string, TestTensor>& tensors,
                                              const std::string& extra_header = "", const std::string& dtype = "F32") {
  const size_t width = dtype == "F32" ? 4 : 2;
  std::string header = "{";
  size_t offset = 0;
  for (const auto& [name, t] : tensors) {
    std::string shape;
    for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(t.shape[i]);
    const size_t bytes = t.values.size() * width;
    header += "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[" + shape + "],\"data_offsets\":[" +
              std::to_string(offset) + "," + std::to_string(offset + bytes) + "]},";
    offset += bytes;
  }
  header += extra_header.empty() ? "\"__metadata__\":{\"format\":\"pt\"}}" : extra_header + "}";
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  for (const auto& [name, t] : tensors) {
    for (float v : t.values) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      const uint32_t stored = dtype == "F32" ? bits : dtype == "BF16" ? bits >> 16 : float_to_half(v);
      for (size_t b = 0; b < width; ++b) out.push_back(uint8_t(stored >> (8 * b)));  // little-endian
    }
  }
  return out;
}

// Bytes with a hand-written header and raw data, for malformed files.
inline std::vector<uint8_t> raw_safetensors(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.resize(out.size() + data_bytes);
  return out;
}

struct BertSize {
  int vocab, d, layers, ff, positions, types;
};

// The tensors of a BertModel of this size, named as Hugging Face names them (nn.Linear weights are
// (out, in)), with small deterministic values: LayerNorm weights near 1, everything else in ±0.5.
inline std::map<std::string, TestTensor> bert_tensors(const BertSize& s, const std::string& prefix = "") {
  std::map<std::string, TestTensor> t;
  int seed = 1;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, float base) {
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d);
    TestTensor& x = t[prefix + name];
    x.shape = std::move(shape);
    for (size_t i = 0; i < n; ++i) x.values.push_back(base + 0.5f * std::sin(float(seed * 131 + int(i) * 7)));
    ++seed;
  };
  add("embeddings.word_embeddings.weight", {s.vocab, s.d}, 0);
  add("embeddings.position_embeddings.weight", {s.positions, s.d}, 0);
  add("embeddings.token_type_embeddings.weight", {s.types, s.d}, 0);
  add("embeddings.LayerNorm.weight", {s.d}, 1);
  add("embeddings.LayerNorm.bias", {s.d}, 0);
  for (int i = 0; i < s.layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    for (const char* lin : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
      add(p + lin + ".weight", {s.d, s.d}, 0);
      add(p + lin + ".bias", {s.d}, 0);
    }
    add(p + "intermediate.dense.weight", {s.ff, s.d}, 0);
    add(p + "intermediate.dense.bias", {s.ff}, 0);
    add(p + "output.dense.weight", {s.d, s.ff}, 0);
    add(p + "output.dense.bias", {s.d}, 0);
    for (const char* ln : {"attention.output.LayerNorm", "output.LayerNorm"}) {
      add(p + ln + ".weight", {s.d}, 1);
      add(p + ln + ".bias", {s.d}, 0);
    }
  }
  return t;
}

// The config.json of a BertModel of this size with `heads` heads; `extra` is inserted as more fields.
// The same for a ModelConfig (anything with its field names; a template, so this header needs
// no engine header).
template <class Config>
std::map<std::string, TestTensor> bert_tensors_for(const Config& c, const std::string& prefix = "") {
  return bert_tensors(BertSize{c.vocab_size, c.hidden_size, c.num_hidden_layers, c.intermediate_size,
                               c.max_position_embeddings, c.type_vocab_size}, prefix);
}

inline std::string bert_config_json(const BertSize& s, int heads, const std::string& extra = "") {
  return "{\"model_type\": \"bert\", \"architectures\": [\"BertModel\"], \"vocab_size\": " + std::to_string(s.vocab) +
         ", \"hidden_size\": " + std::to_string(s.d) + ", \"num_hidden_layers\": " + std::to_string(s.layers) +
         ", \"num_attention_heads\": " + std::to_string(heads) + ", \"intermediate_size\": " + std::to_string(s.ff) +
         ", \"hidden_act\": \"gelu\", \"max_position_embeddings\": " + std::to_string(s.positions) +
         ", \"type_vocab_size\": " + std::to_string(s.types) + ", \"layer_norm_eps\": 1e-12" + (extra.empty() ? "" : ", " + extra) + "}";
}

}  // namespace multihead::testing
