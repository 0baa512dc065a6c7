// ModelConfig: reading config.json with nlohmann::json, and the limits every config must meet.
// One table of integer fields serves both the parser and check_model_config, so a limit is
// written once. Values are checked as the JSON holds them (int64, uint64 or double) before any
// conversion, so a message shows what the file says, not a wrapped or rounded copy.
#include "multihead/config.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "json_limits.h"

namespace multihead {
namespace {

using nlohmann::json;

struct IntField {
  const char* name;
  int ModelConfig::*member;
  int min, max;
  int fallback;  // used when config.json leaves the field out; 0 = required
};

constexpr IntField kIntFields[] = {
    {"vocab_size", &ModelConfig::vocab_size, 1, kMaxVocabulary, 0},
    {"hidden_size", &ModelConfig::hidden_size, 1, kMaxDModel, 0},
    {"num_hidden_layers", &ModelConfig::num_hidden_layers, 1, kMaxLayers, 0},
    {"num_attention_heads", &ModelConfig::num_attention_heads, 1, kMaxDModel, 0},
    {"intermediate_size", &ModelConfig::intermediate_size, 1, kMaxIntermediate, 0},
    {"max_position_embeddings", &ModelConfig::max_position_embeddings, 1, kMaxTokens, 0},
    {"type_vocab_size", &ModelConfig::type_vocab_size, 1, kMaxTypeVocabulary, 2},  // BERT's default
};

// layer_norm_eps is stored as a float: below the smallest normal float it would round towards 0.
constexpr double kMinLayerNormEps = std::numeric_limits<float>::min();

std::string range_error(const std::string& source, const IntField& f, const std::string& got) {
  return source + ": " + f.name + " must be from " + std::to_string(f.min) + " to " + std::to_string(f.max) + ", got " + got;
}

int read_int(const json& config, const IntField& f) {
  const auto it = config.find(f.name);
  if (it == config.end()) {
    if (f.fallback) return f.fallback;
    throw std::invalid_argument(std::string("config.json: ") + f.name + " is missing");
  }
  const json& value = *it;
  if (!value.is_number_integer()) {
    throw std::invalid_argument(std::string("config.json: ") + f.name + " must be an integer, got " + shown(value));
  }
  // Unsigned and signed are compared separately: an unsigned above INT64_MAX must not wrap to -1.
  const bool in_range = value.is_number_unsigned() ? value.get<uint64_t>() <= uint64_t(f.max) && value.get<uint64_t>() >= uint64_t(f.min)
                                                   : value.get<int64_t>() >= f.min && value.get<int64_t>() <= f.max;
  if (!in_range) throw LimitError(range_error("config.json", f, shown(value)));
  return int(value.get<int64_t>());
}

std::string eps_error(const std::string& source, const std::string& got) {
  return source + ": layer_norm_eps must be from 1.2e-38 (the smallest normal float) to below 1, got " + got;
}

float read_layer_norm_eps(const json& config) {
  const auto it = config.find("layer_norm_eps");
  if (it == config.end()) return ModelConfig().layer_norm_eps;
  if (!it->is_number()) throw std::invalid_argument("config.json: layer_norm_eps must be a number, got " + shown(*it));
  const double eps = it->get<double>();  // checked in double: converting 1e-50 to float gives 0
  if (!(eps >= kMinLayerNormEps && eps < 1)) {
    throw LimitError(eps_error("config.json", shown(*it)));
  }
  return float(eps);
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(size_t{1} << 30));
  return text;
}


}  // namespace

double model_weight_bytes(const ModelConfig& c) {
  const double d = c.hidden_size, ff = c.intermediate_size;
  const double embeddings = (double(c.vocab_size) + c.max_position_embeddings + c.type_vocab_size) * d + 2 * d;
  const double block = 4 * (d * d + d)  // W_q, W_k, W_v, W_o and their biases
                       + 2 * d * ff + ff + d  // the MLP
                       + 4 * d;               // two LayerNorms
  return 4 * (embeddings + double(c.num_hidden_layers) * block);
}

void check_model_config(const ModelConfig& c, const std::string& source) {
  for (const IntField& f : kIntFields) {
    const int v = c.*f.member;
    if (v < f.min || v > f.max) throw LimitError(range_error(source, f, std::to_string(v)));
  }
  if (c.hidden_size % c.num_attention_heads != 0) {
    throw std::invalid_argument(source + ": hidden_size (" + std::to_string(c.hidden_size) + ") must be divisible by num_attention_heads (" +
                                std::to_string(c.num_attention_heads) + ")");
  }
  if (!(c.layer_norm_eps >= kMinLayerNormEps && c.layer_norm_eps < 1)) {
    char eps[32];
    std::snprintf(eps, sizeof eps, "%.9g", double(c.layer_norm_eps));
    throw LimitError(eps_error(source, eps));
  }
  const double bytes = model_weight_bytes(c);
  if (bytes > double(kMaxModelBytes)) {
    throw LimitError(source + ": vocab_size (" + std::to_string(c.vocab_size) + "), hidden_size (" + std::to_string(c.hidden_size) +
                            "), num_hidden_layers (" + std::to_string(c.num_hidden_layers) + "), intermediate_size (" +
                            std::to_string(c.intermediate_size) + ") and max_position_embeddings (" +
                            std::to_string(c.max_position_embeddings) + ") make " + gib(bytes) +
                            " of float32 weights, above the limit of " + gib(double(kMaxModelBytes)));
  }
}

ModelConfig parse_bert_config(const std::string& json_text) {
  if (json_too_deep(json_text.data(), json_text.data() + json_text.size())) {
    throw std::invalid_argument("config.json: JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  json config;
  try {
    config = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    throw std::invalid_argument("config.json: not valid JSON (" + parse_error_text(e) + ")");
  }
  if (!config.is_object()) throw std::invalid_argument(std::string("config.json: must be a JSON object, got ") + config.type_name());
  const auto model_type = config.find("model_type");
  if (model_type == config.end()) throw std::invalid_argument("config.json: model_type is missing; it must be \"bert\"");
  if (*model_type != "bert") throw std::invalid_argument("config.json: model_type must be \"bert\", got " + shown(*model_type));
  const auto act = config.find("hidden_act");
  if (act != config.end() && *act != "gelu") throw std::invalid_argument("config.json: hidden_act must be \"gelu\", got " + shown(*act));

  ModelConfig c;
  for (const IntField& f : kIntFields) c.*f.member = read_int(config, f);
  c.layer_norm_eps = read_layer_norm_eps(config);
  check_model_config(c, "config.json");  // what involves several fields: divisibility, total size
  return c;
}

}  // namespace multihead
