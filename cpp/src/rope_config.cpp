// config.json's RoPE fields (rope_config.h).
#include "rope_config.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "json_limits.h"

namespace multihead {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& field, const std::string& what, const json& got) {
  throw std::invalid_argument("config.json: " + field + " must be " + what + ", got " + shown(got));
}

// `object[name]` as a number, or `fallback` when absent or null (or an error when there is none).
double number(const json& object, const std::string& where, const char* name, std::optional<double> fallback) {
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) {
    if (!fallback) throw std::invalid_argument("config.json: " + where + name + " is missing");
    return *fallback;
  }
  if (!it->is_number()) refuse(where + name, "a number", *it);
  return it->get<double>();
}

// The rope_type of a scaling object: "rope_type", or "type" as older configs write it.
std::string rope_type(const json& scaling, const std::string& where) {
  auto it = scaling.find("rope_type");
  if (it == scaling.end()) it = scaling.find("type");
  if (it == scaling.end()) return "default";
  if (!it->is_string()) refuse(where + "rope_type", "a string", *it);
  return it->get<std::string>();
}

// Scaling from `scaling` (rope_scaling, or the rope_parameters object), named `where` in messages.
void read_scaling(const json& scaling, const std::string& where, RopeConfig& rope) {
  const std::string type = rope_type(scaling, where);
  if (type == "default") return;
  if (type == "linear") {
    rope.scaling = RopeScaling::linear;
    rope.factor = number(scaling, where, "factor", std::nullopt);
    return;
  }
  if (type == "llama3") {
    rope.scaling = RopeScaling::llama3;
    rope.factor = number(scaling, where, "factor", std::nullopt);
    rope.low_freq_factor = number(scaling, where, "low_freq_factor", std::nullopt);
    rope.high_freq_factor = number(scaling, where, "high_freq_factor", std::nullopt);
    rope.original_max_position = number(scaling, where, "original_max_position_embeddings", std::nullopt);
    return;
  }
  throw std::invalid_argument("config.json: " + where + "rope_type \"" + shortened(type) +
                              "\" is not supported; the engine implements \"default\", \"linear\" and \"llama3\"");
}

int rotary_dim(double fraction, int head_dim, const std::string& name) {
  if (!(fraction > 0 && fraction <= 1)) {
    throw std::invalid_argument("config.json: " + name + " must be above 0 and at most 1, got " + shown(json(fraction)));
  }
  return int(double(head_dim) * fraction);  // int(), as transformers truncates it
}

}  // namespace

RopeConfig read_rope(const json& config, const RopeFields& f, int head_dim, const char* layer_type) {
  RopeConfig rope;
  const auto parameters = config.find("rope_parameters");
  if (parameters != config.end() && !parameters->is_null()) {  // v5
    if (!parameters->is_object()) refuse("rope_parameters", "an object", *parameters);
    const json* p = &*parameters;
    std::string where = "rope_parameters.";
    if (layer_type && p->contains(layer_type)) {
      p = &p->at(layer_type);
      where += std::string(layer_type) + ".";
      if (!p->is_object()) refuse(where.substr(0, where.size() - 1), "an object", *p);
    }
    const bool sliding = layer_type && std::string(layer_type) == "sliding_attention" && f.sliding_theta;
    rope.theta = number(*p, where, "rope_theta", sliding ? f.sliding_theta_fallback : f.theta_fallback);
    // v5 keeps the share in rope_parameters as partial_rotary_factor; older names stay at the top.
    const char* name = p->contains("partial_rotary_factor") ? "partial_rotary_factor" : f.fraction;
    const double fraction = p->contains(name) ? number(*p, where, name, 1.0) : number(config, "", f.fraction, f.fraction_fallback);
    rope.rotary_dim = rotary_dim(fraction, head_dim, name);
    read_scaling(*p, where, rope);
    return rope;
  }
  rope.rotary_dim = rotary_dim(number(config, "", f.fraction, f.fraction_fallback), head_dim, f.fraction);
  if (layer_type && std::string(layer_type) == "sliding_attention" && f.sliding_theta) {  // its own base, unscaled
    rope.theta = number(config, "", f.sliding_theta, f.sliding_theta_fallback);
    return rope;
  }
  rope.theta = number(config, "", f.theta, f.theta_fallback);
  const auto scaling = config.find("rope_scaling");
  if (scaling != config.end() && !scaling->is_null()) {
    if (!scaling->is_object()) refuse("rope_scaling", "an object or null", *scaling);
    read_scaling(*scaling, "rope_scaling.", rope);
  }
  return rope;
}

}  // namespace multihead
