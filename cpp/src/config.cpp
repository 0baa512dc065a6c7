// ModelConfig: reading config.json with nlohmann::json, and the limits every config must meet.
// One table of limits (kLimits, by engine field) serves both the parser and check_model_config, so
// a limit is written once; each architecture's ConfigFields (architectures/) say which config.json
// field holds each value, its default, and the options the forward pass requires. Values are
// checked as the JSON holds them (int64, uint64 or double) before any conversion, so a message
// shows what the file says, not a wrapped or rounded copy.
#include "multihead/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "json_limits.h"
#include "rope_config.h"

namespace multihead {
namespace {

using nlohmann::json;

struct Limit {
  int ModelConfig::*member;
  const char* name;  // the engine's name, used for configs built in code
  int min, max;
};

constexpr Limit kLimits[] = {
    {&ModelConfig::vocab_size, "vocab_size", 1, kMaxVocabulary},
    {&ModelConfig::hidden_size, "hidden_size", 1, kMaxDModel},
    {&ModelConfig::num_hidden_layers, "num_hidden_layers", 1, kMaxLayers},
    {&ModelConfig::num_attention_heads, "num_attention_heads", 1, kMaxDModel},
    {&ModelConfig::num_key_value_heads, "num_key_value_heads", 1, kMaxDModel},
    {&ModelConfig::head_dim, "head_dim", 1, kMaxDModel},
    {&ModelConfig::intermediate_size, "intermediate_size", 1, kMaxIntermediate},
    {&ModelConfig::max_position_embeddings, "max_position_embeddings", 1, kMaxTokens},
    {&ModelConfig::type_vocab_size, "type_vocab_size", 1, kMaxTypeVocabulary},  // with token types only
    {&ModelConfig::num_decoder_layers, "num_decoder_layers", 1, kMaxLayers},        // an encoder–decoder's only
    {&ModelConfig::relative_buckets, "relative_attention_num_buckets", 4, kMaxRelativeBuckets},  // relative positions only
    {&ModelConfig::relative_max_distance, "relative_attention_max_distance", 1, kMaxRotaryPositions},
};

// The fields of kLimits that only some architectures have: 0 in the others (check_architecture_fields).
bool is_optional_field(int ModelConfig::*member) {
  return member == &ModelConfig::type_vocab_size || member == &ModelConfig::num_decoder_layers ||
         member == &ModelConfig::relative_buckets || member == &ModelConfig::relative_max_distance;
}

const Limit& limit_of(int ModelConfig::*member) {
  for (const Limit& l : kLimits) {
    if (l.member == member) return l;
  }
  throw std::logic_error("no limit for a ModelConfig field");
}

// The limit of `member` in `c`: without a position table, max_position_embeddings only bounds the
// positions (a run is still at most kMaxTokens long), so Llama 3.2's 131072 is accepted.
Limit limit_in(const ModelConfig& c, int ModelConfig::*member) {
  Limit l = limit_of(member);
  const bool no_table = c.architecture && (c.architecture->positions == Positions::rotary || c.architecture->positions == Positions::relative);
  if (member == &ModelConfig::max_position_embeddings && no_table) {
    l.max = kMaxRotaryPositions;
  }
  return l;
}

// layer_norm_eps is stored as a float: below the smallest normal float it would round towards 0.
constexpr double kMinLayerNormEps = std::numeric_limits<float>::min();

std::string range_error(const std::string& source, const char* name, const Limit& l, const std::string& got) {
  return source + ": " + name + " must be from " + std::to_string(l.min) + " to " + std::to_string(l.max) + ", got " + got;
}

// The integer `name` holds, checked against [min, max] before any conversion.
int read_checked(const json& value, const char* name, const Limit& l) {
  if (!value.is_number_integer()) {
    throw std::invalid_argument(std::string("config.json: ") + name + " must be an integer, got " + shown(value));
  }
  // Unsigned and signed are compared separately: an unsigned above INT64_MAX must not wrap to -1.
  const bool in_range = value.is_number_unsigned() ? value.get<uint64_t>() <= uint64_t(l.max) && value.get<uint64_t>() >= uint64_t(l.min)
                                                   : value.get<int64_t>() >= l.min && value.get<int64_t>() <= l.max;
  if (!in_range) throw LimitError(range_error("config.json", name, l, shown(value)));
  return int(value.get<int64_t>());
}

std::string str(int v) { return std::to_string(v); }

const char* field_name(const ConfigFields& f, int ModelConfig::*member) {
  for (const IntField& field : f.ints) {
    if (field.member == member) return field.name;
  }
  return limit_of(member).name;
}

// Divisibility in the file's own names (DistilBERT's dim and n_heads, GPT-2's n_embd and n_head).
void check_heads_divide(const ModelConfig& c, const ConfigFields& f) {
  if (c.hidden_size % c.num_attention_heads != 0) {
    throw std::invalid_argument(std::string("config.json: ") + field_name(f, &ModelConfig::hidden_size) + " (" + str(c.hidden_size) +
                                ") must be divisible by " + field_name(f, &ModelConfig::num_attention_heads) + " (" +
                                str(c.num_attention_heads) + ")");
  }
}

// The value of an absent field: a number, or one computed from the fields read before it.
int fallback_value(int fallback, const ConfigFields& f, const ModelConfig& c) {
  switch (fallback) {
    case kFourTimesHidden: return 4 * c.hidden_size;
    case kSameAsHeads: return c.num_attention_heads;
    case kHiddenOverHeads: check_heads_divide(c, f); return c.hidden_size / c.num_attention_heads;
    case kSameAsLayers: return c.num_hidden_layers;
    default: return fallback;
  }
}

void read_int(const json& config, const IntField& field, const ConfigFields& f, ModelConfig& c) {
  auto it = config.find(field.name);
  if (it == config.end() && field.older) it = config.find(field.older);
  if (it != config.end() && it->is_null() && field.if_null != kRequired) {
    c.*field.member = fallback_value(field.if_null, f, c);
    return;
  }
  const bool computed = field.fallback == kFourTimesHidden || field.fallback == kSameAsHeads || field.fallback == kHiddenOverHeads ||
                        field.fallback == kSameAsLayers;
  const bool absent = it == config.end() || (computed && it->is_null());  // transformers computes these from null too
  if (absent && field.fallback == kRequired) throw std::invalid_argument(std::string("config.json: ") + field.name + " is missing");
  c.*field.member = absent ? fallback_value(field.fallback, f, c) : read_checked(*it, it.key().c_str(), limit_in(c, field.member));
}

std::string eps_error(const std::string& source, const std::string& name, const std::string& got) {
  return source + ": " + name + " must be from 1.2e-38 (the smallest normal float) to below 1, got " + got;
}

float read_layer_norm_eps(const json& config, const ConfigFields& f) {
  const auto it = f.eps ? config.find(f.eps) : config.end();
  if (it == config.end()) return float(f.eps_fallback);
  if (!it->is_number()) throw std::invalid_argument(std::string("config.json: ") + f.eps + " must be a number, got " + shown(*it));
  const double eps = it->get<double>();  // checked in double: converting 1e-50 to float gives 0
  if (!(eps >= kMinLayerNormEps && eps < 1)) throw LimitError(eps_error("config.json", f.eps, shown(*it)));
  return float(eps);
}

// transformers' ACT2FN names for the activations the engine has.
constexpr std::pair<const char*, Activation> kActivations[] = {
    {"gelu", Activation::gelu_erf}, {"gelu_new", Activation::gelu_tanh}, {"gelu_pytorch_tanh", Activation::gelu_tanh},
    {"silu", Activation::silu}, {"swish", Activation::silu}, {"relu", Activation::relu},
};

// An activation by its ACT2FN name, or what the error says.
Activation activation_named(const json& value, const char* field) {
  std::string names;
  for (const auto& [name, activation] : kActivations) {
    if (value == name) return activation;
    names += std::string(names.empty() ? "" : ", ") + "\"" + name + "\"";
  }
  throw std::invalid_argument(std::string("config.json: ") + field + " must be one of " + names + ", got " + shown(value));
}

// T5's feed_forward_proj: "<act>" for a dense MLP, "gated-<act>" for a gated one, as T5Config
// splits it; "gated-gelu" means the tanh approximation (T5Config sets dense_act_fn "gelu_new").
std::pair<Mlp, Activation> read_feed_forward(const json& config, const char* field) {
  const auto it = config.find(field);
  const json value = it == config.end() ? json("relu") : *it;
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  const size_t dash = text.find('-');
  const bool gated = dash != std::string::npos && text.substr(0, dash) == "gated";
  const std::string act = dash == std::string::npos ? text : text.substr(dash + 1);
  if (!value.is_string() || (dash != std::string::npos && (!gated || act.find('-') != std::string::npos))) {
    throw std::invalid_argument(std::string("config.json: ") + field + " must be \"<activation>\" or \"gated-<activation>\", got " +
                                shown(value));
  }
  if (text == "gated-gelu") return {Mlp::gated, Activation::gelu_tanh};
  return {gated ? Mlp::gated : Mlp::dense, activation_named(json(act), field)};
}

Activation read_activation(const json& config, const ConfigFields& f) {
  const auto it = config.find(f.activation);
  return activation_named(it == config.end() ? json(f.activation_fallback) : *it, f.activation);
}

// sliding_window: an integer of at least 1, or null for none; absent, the architecture's default.
int read_sliding_window(const json& config, const ConfigFields& f) {
  const auto it = config.find("sliding_window");
  if (it == config.end()) return f.window_fallback;
  if (it->is_null()) return 0;
  return read_checked(*it, "sliding_window", {nullptr, "sliding_window", 1, kMaxRotaryPositions});
}

// Which layers slide (Windows::by_layer_type): layer_types, a list of "sliding_attention" and
// "full_attention" with one entry per layer, or else sliding_window_pattern P (default 6), by which
// layer i slides unless i + 1 is a multiple of P.
std::vector<bool> read_sliding_layers(const json& config, int layers) {
  std::vector<bool> sliding(static_cast<size_t>(layers));
  const auto types = config.find("layer_types");
  if (types != config.end() && !types->is_null()) {
    if (!types->is_array() || types->size() != size_t(layers)) {
      throw std::invalid_argument("config.json: layer_types must be a list of " + str(layers) + " layer types, one per layer, got " +
                                  shown(*types));
    }
    for (size_t l = 0; l < sliding.size(); ++l) {
      const json& type = (*types)[l];
      if (type != "sliding_attention" && type != "full_attention") {
        throw std::invalid_argument("config.json: layer_types[" + std::to_string(l) +
                                    "] must be \"sliding_attention\" or \"full_attention\", got " + shown(type));
      }
      sliding[l] = type == "sliding_attention";
    }
    return sliding;
  }
  const auto it = config.find("sliding_window_pattern");
  const int pattern = it == config.end() || it->is_null() ? 6 : read_checked(*it, "sliding_window_pattern", {nullptr, "", 1, kMaxLayers});
  for (int l = 0; l < layers; ++l) sliding[size_t(l)] = (l + 1) % pattern != 0;
  return sliding;
}

std::vector<int> read_windows(const json& config, const ArchitectureSpec& spec, int layers) {
  switch (spec.windows) {
    case Windows::none: return {};
    case Windows::every_layer: return std::vector<int>(size_t(layers), read_sliding_window(config, spec.config));
    case Windows::by_layer_type: {
      const int window = read_sliding_window(config, spec.config);
      const std::vector<bool> sliding = read_sliding_layers(config, layers);
      std::vector<int> windows(static_cast<size_t>(layers));
      for (size_t l = 0; l < windows.size(); ++l) windows[l] = sliding[l] ? window : 0;
      return windows;
    }
  }
  return {};
}

// A number of config.json that may be null (or absent) for none: 0 then.
double read_optional_positive(const json& config, const char* name, double fallback) {
  const auto it = config.find(name);
  if (it == config.end()) return fallback;
  if (it->is_null()) return 0;
  if (!it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>())) {
    throw std::invalid_argument(std::string("config.json: ") + name + " must be a positive number or null, got " + shown(*it));
  }
  return it->get<double>();
}

// A true/false field, `fallback` when absent.
bool read_flag(const json& config, const char* name, bool fallback) {
  const auto it = config.find(name);
  if (it == config.end()) return fallback;
  if (!it->is_boolean()) throw std::invalid_argument(std::string("config.json: ") + name + " must be true or false, got " + shown(*it));
  return it->get<bool>();
}

// Each pair of ConfigFields::equal the file gives both of holds one value.
void check_equal(const json& config, const ConfigFields& f) {
  for (const auto& [first, second] : f.equal) {
    const auto a = config.find(first), b = config.find(second);
    if (a != config.end() && b != config.end() && *a != *b) {
      throw std::invalid_argument(std::string("config.json: ") + second + " (" + shown(*b) + ") must equal " + first + " (" + shown(*a) +
                                  "): the engine's encoder and decoder have one size of each");
    }
  }
}

bool read_tie(const json& config, const ArchitectureSpec& spec) {
  if (spec.lm_head != LmHead::untied) return spec.config.tie_fallback;
  return read_flag(config, "tie_word_embeddings", spec.config.tie_fallback);
}

void check_required(const json& config, const ConfigFields& f) {
  for (const RequiredValue& r : f.required) {
    const auto it = config.find(r.name);
    if (it != config.end() && *it != json::parse(r.value)) {
      throw std::invalid_argument(std::string("config.json: ") + r.name + " must be " + r.value + ", got " + shown(*it) +
                                  "; the engine implements only " + r.value);
    }
  }
}

int read_position_offset(const json& config, const ConfigFields& f) {
  if (!f.padding) return 0;
  const auto it = config.find(f.padding);
  if (it == config.end()) return 2;  // RobertaConfig's pad_token_id is 1
  return read_checked(*it, f.padding, {nullptr, f.padding, 0, kMaxTokens - 1}) + 1;
}

const ArchitectureSpec& architecture_of(const json& config) {
  const auto model_type = config.find("model_type");
  const std::string supported = "supported model types are " + architecture_list();
  if (model_type == config.end()) throw std::invalid_argument("config.json: model_type is missing; " + supported);
  if (model_type->is_string()) {
    if (const ArchitectureSpec* spec = find_architecture(model_type->get<std::string>())) return *spec;
  }
  throw std::invalid_argument("config.json: model_type " + shown(*model_type) + " is not supported; " + supported);
}

void check_architecture_fields(const ModelConfig& c, const std::string& source) {
  if (!c.architecture) throw std::invalid_argument(source + ": architecture is not set");
  const bool token_types = c.architecture->has(Weight::token_type_embeddings);
  if (token_types && (c.type_vocab_size < 1 || c.type_vocab_size > kMaxTypeVocabulary)) {
    throw LimitError(range_error(source, "type_vocab_size", limit_of(&ModelConfig::type_vocab_size), str(c.type_vocab_size)));
  }
  if (!token_types && c.type_vocab_size != 0) {
    throw std::invalid_argument(source + ": type_vocab_size must be 0 for " + c.architecture->model_type +
                                ", which has no token types, got " + str(c.type_vocab_size));
  }
  const auto in_range_or_zero = [&](int ModelConfig::*member, bool present) {
    const Limit& l = limit_of(member);
    const int v = c.*member;
    if (present && (v < l.min || v > l.max)) throw LimitError(range_error(source, l.name, l, str(v)));
    if (!present && v != 0) {
      throw std::invalid_argument(source + ": " + l.name + " must be 0 for " + c.architecture->model_type + ", which has none, got " + str(v));
    }
  };
  in_range_or_zero(&ModelConfig::num_decoder_layers, c.architecture->encoder_decoder());
  const bool relative = c.architecture->positions == Positions::relative;
  in_range_or_zero(&ModelConfig::relative_buckets, relative);
  in_range_or_zero(&ModelConfig::relative_max_distance, relative);
  if (relative && c.relative_max_distance <= c.relative_buckets / 2) {  // past the exact buckets, or the log bins divide by 0
    throw std::invalid_argument(source + ": relative_attention_max_distance (" + str(c.relative_max_distance) +
                                ") must be above half of relative_attention_num_buckets (" + str(c.relative_buckets) + ")");
  }
  if (c.position_offset < 0 || c.position_offset >= c.max_position_embeddings) {
    throw std::invalid_argument(source + ": max_position_embeddings (" + str(c.max_position_embeddings) +
                                ") must be above the first position row (" + str(c.position_offset) + ")");
  }
  if (!c.windows.empty() && c.windows.size() != size_t(c.num_hidden_layers)) {
    throw std::invalid_argument(source + ": windows has " + std::to_string(c.windows.size()) + " entries, expected none or one per layer (" +
                                str(c.num_hidden_layers) + ")");
  }
  for (int w : c.windows) {
    if (w < 0 || (w > 0 && c.architecture->mask != Mask::causal)) {
      throw std::invalid_argument(source + ": a sliding window must be 0 (none) or, in a causal model, at least 1, got " + str(w));
    }
  }
  if (c.architecture->positions == Positions::rotary) {
    if (c.rope.rotary_dim > c.head_dim) {
      throw std::invalid_argument(source + ": RoPE's rotary dimensions (" + str(c.rope.rotary_dim) + ") must be at most head_dim (" +
                                  str(c.head_dim) + ")");
    }
    try {
      rope_inv_freq(c.rope);
      for (int l = 0; l < c.num_hidden_layers; ++l) rope_inv_freq(c.rope_of(l));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(source + ": " + e.what());
    }
  }
}

}  // namespace

bool applies(const ModelConfig& c, const TensorRule& r) {
  switch (r.when) {
    case When::always: return true;
    case When::dense_mlp: return c.mlp() == Mlp::dense;
    case When::gated_mlp: return c.mlp() == Mlp::gated;
  }
  return false;
}

std::vector<PlacedWeight> model_weights(const ModelConfig& c, bool head) {
  std::vector<PlacedWeight> out;
  const auto add = [&](PlacedWeight p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (const TensorRule& r : c.architecture->tensors) {
    if ((r.part == Part::head && !head) || !applies(c, r)) continue;
    for (Weight w : filled_weights(r)) {
      if (w == Weight::lm_head && c.lm_head() == LmHead::tied) continue;  // the word embeddings serve
      add({w, weight_kind(w).scope == Scope::model ? Stack::encoder : r.stack});
    }
  }
  if (c.architecture->positions == Positions::sinusoidal) {  // computed as the model loads
    add({Weight::position_embeddings, Stack::encoder});
    if (c.architecture->encoder_decoder()) add({Weight::position_embeddings, Stack::decoder});
  }
  return out;
}

int buffer_count(const ModelConfig& c, const PlacedWeight& w) {
  return weight_kind(w.weight).scope == Scope::layer ? c.layers(w.stack) : 1;
}

double model_floats(const ModelConfig& c, bool head, bool storage_sizes) {
  double floats = 0;
  for (const PlacedWeight& w : model_weights(c, head)) {
    const WeightKind& k = weight_kind(w.weight);
    const size_t rows = dim_size(c, k.rows), cols = dim_size(c, k.cols);
    const double one = storage_sizes ? double(Buffer::floats(rows, cols, k.storage)) : double(rows) * double(cols);
    floats += one * double(buffer_count(c, w));
  }
  return floats;
}

double model_weight_bytes(const ModelConfig& c) { return 4 * model_floats(c, false, false); }

void check_model_config(const ModelConfig& c, const std::string& source) {
  for (const Limit& table : kLimits) {
    if (is_optional_field(table.member)) continue;  // depends on the architecture, below
    const Limit l = limit_in(c, table.member);
    const int v = c.*l.member;
    if (v < l.min || v > l.max) throw LimitError(range_error(source, l.name, l, str(v)));
  }
  check_architecture_fields(c, source);
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    throw std::invalid_argument(source + ": num_attention_heads (" + str(c.num_attention_heads) +
                                ") must be a multiple of num_key_value_heads (" + str(c.num_key_value_heads) + ")");
  }
  check_config(c.attention());
  if (!(c.layer_norm_eps >= kMinLayerNormEps && c.layer_norm_eps < 1)) {
    char eps[32];
    std::snprintf(eps, sizeof eps, "%.9g", double(c.layer_norm_eps));
    throw LimitError(eps_error(source, "layer_norm_eps", eps));
  }
  // The least the weights can take: a BF16 file's matrices and tables stay bfloat16 (2 bytes a
  // value); what the file's dtypes really make is the loader's check.
  const double bytes = model_weight_bytes(c) / 2;
  if (bytes > double(kMaxModelBytes)) {
    throw LimitError(source + ": vocab_size (" + str(c.vocab_size) + "), hidden_size (" + str(c.hidden_size) +
                     "), num_hidden_layers (" + str(c.num_hidden_layers) + "), intermediate_size (" + str(c.intermediate_size) +
                     ") and max_position_embeddings (" + str(c.max_position_embeddings) + ") make " + gib_text(bytes) +
                     " of weights even as bfloat16, above the limit of " + gib_text(double(kMaxModelBytes)));
  }
}

ModelConfig parse_model_config(const std::string& json_text) {
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
  const ArchitectureSpec& spec = architecture_of(config);
  const ConfigFields& f = spec.config;
  ModelConfig c;
  c.architecture = &spec;
  c.activation = read_activation(config, f);
  check_required(config, f);
  c.num_key_value_heads = 0;
  c.head_dim = 0;
  for (const IntField& field : f.ints) read_int(config, field, f, c);
  if (c.num_key_value_heads == 0) c.num_key_value_heads = c.num_attention_heads;  // architectures without the field
  if (c.head_dim == 0) {
    check_heads_divide(c, f);
    c.head_dim = c.hidden_size / c.num_attention_heads;
  }
  c.layer_norm_eps = read_layer_norm_eps(config, f);
  check_equal(config, f);
  if (f.feed_forward_proj) {
    // dense_act_fn and is_gated_act, where the file gives them, win over what feed_forward_proj
    // implies: T5Config derives them, then sets every field the file has.
    const auto [mlp, activation] = read_feed_forward(config, f.feed_forward_proj);
    c.mlp_kind = read_flag(config, "is_gated_act", mlp == Mlp::gated) ? Mlp::gated : Mlp::dense;
    if (!config.contains(f.activation)) c.activation = activation;
  }
  c.position_offset = read_position_offset(config, f);
  if (f.position_offset) {  // rows before the first position's, added to the table
    c.position_offset = f.position_offset;
    c.max_position_embeddings += f.position_offset;
  }
  c.tie_word_embeddings = read_tie(config, spec);
  if (f.rope) c.rope = read_rope(config, *f.rope, c.head_dim);
  c.windows = read_windows(config, spec, c.num_hidden_layers);
  if (f.rope && f.rope->sliding_theta) c.sliding_rope = read_rope(config, *f.rope, c.head_dim, "sliding_attention");
  if (f.rope && f.rope->sliding_theta) c.rope = read_rope(config, *f.rope, c.head_dim, "full_attention");
  if (f.query_scalar) {
    const double scalar = read_optional_positive(config, f.query_scalar, f.query_scalar_fallback);
    if (scalar == 0) throw std::invalid_argument(std::string("config.json: ") + f.query_scalar + " must be a positive number, got null");
    c.attention_scale = 1.0 / std::sqrt(scalar);
  }
  if (f.softcaps) {
    c.attention_softcap = read_optional_positive(config, "attn_logit_softcapping", 0);
    c.logit_softcap = read_optional_positive(config, "final_logit_softcapping", 0);
  }
  if (f.unscaled_scores) c.attention_scale = 1;
  if (spec.embedding_scale == EmbeddingScale::from_config && read_flag(config, "scale_embedding", false)) {
    c.embedding_scale = float(std::sqrt(double(c.hidden_size)));  // math.sqrt(d_model), multiplied in float32
  }
  if (spec.head_scale == HeadScale::rsqrt_hidden_when_tied && c.lm_head() == LmHead::tied) {
    c.head_scale = float(1.0 / std::sqrt(double(c.hidden_size)));  // d_model ** -0.5
  }
  check_model_config(c, "config.json");  // what involves several fields: divisibility, total size
  return c;
}

std::string gib_text(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(size_t{1} << 30));
  return text;
}

}  // namespace multihead
