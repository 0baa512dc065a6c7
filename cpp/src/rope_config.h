// Reading RoPE's settings from config.json (config.cpp's helper), in both layouts transformers
// writes: v4's top-level rope_theta, partial_rotary_factor and rope_scaling ({"rope_type" or
// the older "type", "factor", ...} or null), and v5's rope_parameters, which holds them all in one
// object, or one object per layer type (Gemma 3's "full_attention" and "sliding_attention").
#pragma once

#include <nlohmann/json.hpp>

#include "multihead/architecture.h"
#include "multihead/rope.h"

namespace multihead {

// The RoPE of a layer of `layer_type` ("full_attention", "sliding_attention", or null for every
// layer) with heads head_dim wide. In v4's layout a sliding layer takes fields.sliding_theta's base
// and no scaling, when the architecture names one.
// Throws std::invalid_argument naming the field for a wrong type or a rope type the pass does not
// implement; the values themselves are checked by check_model_config (rope_inv_freq).
RopeConfig read_rope(const nlohmann::json& config, const RopeFields& fields, int head_dim, const char* layer_type = nullptr);

}  // namespace multihead
