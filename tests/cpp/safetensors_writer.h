// Test helper: writes safetensors bytes from named tensors, so tests (and the fuzzers' seed
// generator, tests/fuzz/make_seeds.cpp) can build small models of every architecture, named as
// Hugging Face names them, and deliberately broken files without any file on disk. It writes what
// the format allows, not every way to break it: broken files are written by hand with
// raw_safetensors. The names here are spelled independently of the engine's architecture tables,
// so the tests check those tables rather than repeat them.
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
  std::string dtype;  // empty: the file's dtype; "I64" or "F64" write the values as int64 / double
};

inline size_t test_dtype_width(const std::string& dtype) {
  return dtype == "F32" ? 4 : dtype == "I64" || dtype == "F64" ? 8 : 2;
}

// One value as `dtype` stores it, little-endian.
inline void append_value(std::vector<uint8_t>& out, float v, const std::string& dtype);

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
// or "BF16" (BF16 keeps a float's top 16 bits); a tensor's own dtype overrides it.
inline std::vector<uint8_t> safetensors_bytes(const std::map<std::string, TestTensor>& tensors,
                                              const std::string& extra_header = "", const std::string& dtype = "F32") {
  const auto dtype_of = [&](const TestTensor& t) { return t.dtype.empty() ? dtype : t.dtype; };
  std::string header = "{";
  size_t offset = 0;
  for (const auto& [name, t] : tensors) {
    std::string shape;
    for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(t.shape[i]);
    const size_t bytes = t.values.size() * test_dtype_width(dtype_of(t));
    header += "\"" + name + "\":{\"dtype\":\"" + dtype_of(t) + "\",\"shape\":[" + shape + "],\"data_offsets\":[" +
              std::to_string(offset) + "," + std::to_string(offset + bytes) + "]},";
    offset += bytes;
  }
  header += extra_header.empty() ? "\"__metadata__\":{\"format\":\"pt\"}}" : extra_header + "}";
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  for (const auto& [name, t] : tensors) {
    for (float v : t.values) append_value(out, v, dtype_of(t));
  }
  return out;
}

inline void append_value(std::vector<uint8_t>& out, float v, const std::string& dtype) {
  uint64_t stored;
  if (dtype == "I64") {
    stored = uint64_t(int64_t(v));
  } else if (dtype == "F64") {
    const double d = v;
    std::memcpy(&stored, &d, 8);
  } else {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    stored = dtype == "F32" ? bits : dtype == "BF16" ? bits >> 16 : float_to_half(v);
  }
  for (size_t b = 0; b < test_dtype_width(dtype); ++b) out.push_back(uint8_t(stored >> (8 * b)));
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

// Adds tensors with small deterministic values: LayerNorm weights near 1 (base 1), everything
// else in ±0.5, each tensor different.
class TensorMaker {
 public:
  TensorMaker(std::map<std::string, TestTensor>& tensors, std::string prefix) : t_(tensors), prefix_(std::move(prefix)) {}
  void add(const std::string& name, std::vector<int64_t> shape, float base = 0) {
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d);
    TestTensor& x = t_[prefix_ + name];
    x.shape = std::move(shape);
    int seed = 1;  // from the name without the prefix: the same tensor gets the same values in every file
    for (char c : name) seed = (seed * 31 + c) % 65521;
    for (size_t i = 0; i < n; ++i) x.values.push_back(base + 0.5f * std::sin(float(seed * 131 + int(i) * 7)));
  }
  void linear(const std::string& name, int64_t in, int64_t out) {  // nn.Linear: (out, in)
    add(name + ".weight", {out, in});
    add(name + ".bias", {out});
  }
  void conv1d(const std::string& name, int64_t in, int64_t out) {  // GPT-2's Conv1D: (in, out)
    add(name + ".weight", {in, out});
    add(name + ".bias", {out});
  }
  void norm(const std::string& name, int64_t d, const char* weight = "weight", const char* bias = "bias") {
    add(name + "." + weight, {d}, 1);
    add(name + "." + bias, {d});
  }
  // A buffer of int64 position ids, (1, n), as newer transformers versions save.
  void position_ids(const std::string& name, int64_t n) {
    TestTensor& x = t_[prefix_ + name];
    x.shape = {1, n};
    x.dtype = "I64";
    for (int64_t i = 0; i < n; ++i) x.values.push_back(float(i));
  }

 private:
  std::map<std::string, TestTensor>& t_;
  std::string prefix_;
};

// The tensors of a BertModel of this size (RobertaModel has the same), named as Hugging Face names
// them; `legacy` writes LayerNorm.gamma/beta as old BERT checkpoints do.
inline std::map<std::string, TestTensor> bert_tensors(const BertSize& s, const std::string& prefix = "", bool legacy = false) {
  std::map<std::string, TestTensor> t;
  TensorMaker m(t, prefix);
  const char* w = legacy ? "gamma" : "weight";
  const char* b = legacy ? "beta" : "bias";
  m.add("embeddings.word_embeddings.weight", {s.vocab, s.d});
  m.add("embeddings.position_embeddings.weight", {s.positions, s.d});
  m.add("embeddings.token_type_embeddings.weight", {s.types, s.d});
  m.norm("embeddings.LayerNorm", s.d, w, b);
  for (int i = 0; i < s.layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    for (const char* lin : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
      m.linear(p + lin, s.d, s.d);
    }
    m.linear(p + "intermediate.dense", s.d, s.ff);
    m.linear(p + "output.dense", s.ff, s.d);
    m.norm(p + "attention.output.LayerNorm", s.d, w, b);
    m.norm(p + "output.LayerNorm", s.d, w, b);
  }
  return t;
}

// An LM head of the BERT family: a dense transform, a LayerNorm and an output bias (the decoder is
// tied to the word embeddings, so not written).
inline void add_transform_head(std::map<std::string, TestTensor>& t, const BertSize& s, const std::string& dense,
                               const std::string& norm, const std::string& bias, bool legacy = false) {
  TensorMaker m(t, "");
  m.linear(dense, s.d, s.d);
  m.norm(norm, s.d, legacy ? "gamma" : "weight", legacy ? "beta" : "bias");
  m.add(bias, {s.vocab});
}

// DistilBertModel's tensors (no token types).
inline std::map<std::string, TestTensor> distilbert_tensors(const BertSize& s, const std::string& prefix = "distilbert.") {
  std::map<std::string, TestTensor> t;
  TensorMaker m(t, prefix);
  m.add("embeddings.word_embeddings.weight", {s.vocab, s.d});
  m.add("embeddings.position_embeddings.weight", {s.positions, s.d});
  m.norm("embeddings.LayerNorm", s.d);
  for (int i = 0; i < s.layers; ++i) {
    const std::string p = "transformer.layer." + std::to_string(i) + ".";
    for (const char* lin : {"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin"}) m.linear(p + lin, s.d, s.d);
    m.norm(p + "sa_layer_norm", s.d);
    m.linear(p + "ffn.lin1", s.d, s.ff);
    m.linear(p + "ffn.lin2", s.ff, s.d);
    m.norm(p + "output_layer_norm", s.d);
  }
  return t;
}

// GPT2Model's tensors; `buffers` adds attn.bias (the causal mask, F32) and attn.masked_bias as
// older Hub files have them.
inline std::map<std::string, TestTensor> gpt2_tensors(const BertSize& s, const std::string& prefix = "", bool buffers = false) {
  std::map<std::string, TestTensor> t;
  TensorMaker m(t, prefix);
  m.add("wte.weight", {s.vocab, s.d});
  m.add("wpe.weight", {s.positions, s.d});
  for (int i = 0; i < s.layers; ++i) {
    const std::string p = "h." + std::to_string(i) + ".";
    m.norm(p + "ln_1", s.d);
    m.conv1d(p + "attn.c_attn", s.d, 3 * s.d);
    m.conv1d(p + "attn.c_proj", s.d, s.d);
    m.norm(p + "ln_2", s.d);
    m.conv1d(p + "mlp.c_fc", s.d, s.ff);
    m.conv1d(p + "mlp.c_proj", s.ff, s.d);
    if (buffers) {
      TestTensor& mask = t[prefix + p + "attn.bias"];
      mask.shape = {1, 1, s.positions, s.positions};
      mask.dtype = "F32";
      for (int r = 0; r < s.positions; ++r) {
        for (int c = 0; c < s.positions; ++c) mask.values.push_back(c <= r ? 1.0f : 0.0f);
      }
      t[prefix + p + "attn.masked_bias"] = TestTensor{{}, {-1e4f}, "F32"};
    }
  }
  m.norm("ln_f", s.d);
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

inline std::string bert_config_json(const BertSize& s, int heads, const std::string& extra = "", const std::string& type = "bert") {
  return "{\"model_type\": \"" + type + "\", \"architectures\": [\"BertModel\"], \"vocab_size\": " + std::to_string(s.vocab) +
         ", \"hidden_size\": " + std::to_string(s.d) + ", \"num_hidden_layers\": " + std::to_string(s.layers) +
         ", \"num_attention_heads\": " + std::to_string(heads) + ", \"intermediate_size\": " + std::to_string(s.ff) +
         ", \"hidden_act\": \"gelu\", \"max_position_embeddings\": " + std::to_string(s.positions) +
         ", \"type_vocab_size\": " + std::to_string(s.types) + ", \"layer_norm_eps\": 1e-12" + (extra.empty() ? "" : ", " + extra) + "}";
}

inline std::string distilbert_config_json(const BertSize& s, int heads, const std::string& extra = "") {
  return "{\"model_type\": \"distilbert\", \"vocab_size\": " + std::to_string(s.vocab) + ", \"dim\": " + std::to_string(s.d) +
         ", \"n_layers\": " + std::to_string(s.layers) + ", \"n_heads\": " + std::to_string(heads) + ", \"hidden_dim\": " +
         std::to_string(s.ff) + ", \"max_position_embeddings\": " + std::to_string(s.positions) +
         ", \"activation\": \"gelu\", \"sinusoidal_pos_embds\": false" + (extra.empty() ? "" : ", " + extra) + "}";
}

inline std::string gpt2_config_json(const BertSize& s, int heads, const std::string& extra = "") {
  return "{\"model_type\": \"gpt2\", \"vocab_size\": " + std::to_string(s.vocab) + ", \"n_embd\": " + std::to_string(s.d) +
         ", \"n_layer\": " + std::to_string(s.layers) + ", \"n_head\": " + std::to_string(heads) + ", \"n_inner\": " +
         std::to_string(s.ff) + ", \"n_positions\": " + std::to_string(s.positions) +
         ", \"activation_function\": \"gelu_new\", \"layer_norm_epsilon\": 1e-05" + (extra.empty() ? "" : ", " + extra) + "}";
}

}  // namespace multihead::testing
