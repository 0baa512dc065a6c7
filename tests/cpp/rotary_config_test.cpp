// config.json of the rotary decoders (Llama, Qwen2): the fields that change their math, in both
// layouts transformers writes (v4's rope_theta and rope_scaling, v5's rope_parameters), their
// defaults, and the options the pass does not implement, refused by name.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "message_of.h"
#include "multihead/config.h"

namespace multihead::testing {
namespace {

// A Llama config.json with SmolLM2-135M's shape (9 query heads on 3 key/value heads), its fields
// replaced or added by those of `extra` (a null stays, as a file can write one).
std::string llama_json(const std::string& extra = "", const std::string& model_type = "llama") {
  nlohmann::json c = nlohmann::json::parse(R"({"vocab_size": 49152, "hidden_size": 576, "num_hidden_layers": 30,
      "num_attention_heads": 9, "num_key_value_heads": 3, "intermediate_size": 1536, "max_position_embeddings": 8192,
      "rms_norm_eps": 1e-05, "rope_theta": 100000, "tie_word_embeddings": true})");
  c["model_type"] = model_type;
  c.update(nlohmann::json::parse("{" + extra + "}"));
  return c.dump();
}

std::string parse_error(const std::string& json) { return message_of<std::exception>([&] { parse_model_config(json); }); }

TEST(RotaryConfig, ReadsSmolLM2sShape) {
  const ModelConfig c = parse_model_config(llama_json());
  EXPECT_EQ(c.architecture, find_architecture("llama"));
  EXPECT_EQ(c.num_attention_heads, 9);
  EXPECT_EQ(c.num_key_value_heads, 3);
  EXPECT_EQ(c.head_dim, 64);  // absent: hidden_size / heads
  EXPECT_EQ(c.activation, Activation::silu);  // hidden_act's default
  EXPECT_FLOAT_EQ(c.layer_norm_eps, 1e-5f);
  EXPECT_EQ(c.rope.rotary_dim, 64);
  EXPECT_DOUBLE_EQ(c.rope.theta, 100000);
  EXPECT_EQ(c.rope.scaling, RopeScaling::none);
  EXPECT_EQ(c.lm_head(), LmHead::tied);
  EXPECT_EQ(c.attention().n_kv_heads, 3);
}

TEST(RotaryConfig, AHeadDimOtherThanHiddenOverHeadsIsRead) {  // Qwen3-0.6B: 16 heads of 128 on a width of 1024
  const ModelConfig c = parse_model_config(llama_json(R"("head_dim": 128, "num_attention_heads": 16, "num_key_value_heads": 8)"));
  EXPECT_EQ(c.head_dim, 128);
  EXPECT_EQ(c.rope.rotary_dim, 128);
  EXPECT_EQ(c.attention().n_heads * c.attention().d_head, 2048);
  EXPECT_EQ(parse_model_config(llama_json(R"("head_dim": null)")).head_dim, 64);  // null: computed, as transformers does
  EXPECT_EQ(parse_model_config(llama_json(R"("num_key_value_heads": null)")).num_key_value_heads, 9);
}

TEST(RotaryConfig, MaxPositionEmbeddingsIsALimitNotATable) {  // Llama 3.2: 131072 positions
  const ModelConfig c = parse_model_config(llama_json(R"("max_position_embeddings": 131072)"));
  EXPECT_EQ(c.max_position_embeddings, 131072);
  EXPECT_EQ(c.max_tokens(), kMaxTokens);
  EXPECT_EQ(parse_model_config(llama_json(R"("max_position_embeddings": 100)")).max_tokens(), 100);
}

TEST(RotaryConfig, Llama3ScalingInTheV4Layout) {  // Llama-3.2-1B's values
  const ModelConfig c = parse_model_config(llama_json(
      R"("rope_theta": 500000.0, "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
         "original_max_position_embeddings": 8192, "rope_type": "llama3"})"));
  EXPECT_EQ(c.rope.scaling, RopeScaling::llama3);
  EXPECT_DOUBLE_EQ(c.rope.theta, 500000);
  EXPECT_DOUBLE_EQ(c.rope.factor, 32);
  EXPECT_DOUBLE_EQ(c.rope.low_freq_factor, 1);
  EXPECT_DOUBLE_EQ(c.rope.high_freq_factor, 4);
  EXPECT_DOUBLE_EQ(c.rope.original_max_position, 8192);
}

TEST(RotaryConfig, LinearScalingUnderTheOlderTypeKey) {  // configs before rope_type wrote "type"
  const ModelConfig c = parse_model_config(llama_json(R"("rope_scaling": {"type": "linear", "factor": 4.0})"));
  EXPECT_EQ(c.rope.scaling, RopeScaling::linear);
  EXPECT_DOUBLE_EQ(c.rope.factor, 4);
  EXPECT_EQ(parse_model_config(llama_json(R"("rope_scaling": null)")).rope.scaling, RopeScaling::none);
  EXPECT_EQ(parse_model_config(llama_json(R"("rope_scaling": {"rope_type": "default"})")).rope.scaling, RopeScaling::none);
}

TEST(RotaryConfig, TheV5LayoutKeepsRopeInRopeParameters) {
  const ModelConfig c = parse_model_config(llama_json(
      R"("rope_theta": null, "rope_parameters": {"rope_type": "linear", "rope_theta": 1000000.0, "factor": 2.0})", "qwen2"));
  EXPECT_EQ(c.architecture, find_architecture("qwen2"));
  EXPECT_DOUBLE_EQ(c.rope.theta, 1000000);
  EXPECT_EQ(c.rope.scaling, RopeScaling::linear);
  EXPECT_DOUBLE_EQ(c.rope.factor, 2);
  // Without rope_theta inside, transformers' default base.
  EXPECT_DOUBLE_EQ(parse_model_config(llama_json(R"("rope_parameters": {"rope_type": "default"})")).rope.theta, 10000);
}

TEST(RotaryConfig, PartialRotaryFactorRotatesTheLeadingShare) {
  EXPECT_EQ(parse_model_config(llama_json(R"("partial_rotary_factor": 0.25)")).rope.rotary_dim, 16);
  EXPECT_EQ(parse_error(llama_json(R"("partial_rotary_factor": 0)")),
            "config.json: partial_rotary_factor must be above 0 and at most 1, got 0.0");
  EXPECT_EQ(parse_error(llama_json(R"("partial_rotary_factor": 0.3)")),
            "config.json: RoPE rotary dimensions must be a positive even number, got 19.000000");
}

TEST(RotaryConfig, TieWordEmbeddingsChoosesTheHead) {
  EXPECT_EQ(parse_model_config(llama_json(R"("tie_word_embeddings": false)")).lm_head(), LmHead::untied);
  // Absent: LlamaConfig's default, false.
  const std::string untied = R"({"model_type": "llama", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
                                 "num_attention_heads": 2, "intermediate_size": 8})";
  EXPECT_EQ(parse_model_config(untied).lm_head(), LmHead::untied);
  EXPECT_EQ(parse_error(llama_json(R"("tie_word_embeddings": 1)")), "config.json: tie_word_embeddings must be true or false, got 1");
}

TEST(RotaryConfig, MistralsSlidingWindowIsEveryLayersAndDefaultsTo4096) {
  const ModelConfig c = parse_model_config(llama_json(R"("sliding_window": 512, "num_hidden_layers": 3)", "mistral"));
  EXPECT_EQ(c.windows, std::vector<int>({512, 512, 512}));
  EXPECT_EQ(c.attention(Stack::encoder, 2).window, 512);
  EXPECT_EQ(parse_model_config(llama_json(R"("sliding_window": null)", "mistral")).window(0), 0);  // v0.2 and later: none
  nlohmann::json absent = nlohmann::json::parse(llama_json("", "mistral"));
  absent.erase("num_key_value_heads");
  absent["num_attention_heads"] = 16;
  const ModelConfig defaults = parse_model_config(absent.dump());
  EXPECT_EQ(defaults.window(0), 4096);  // MistralConfig's defaults
  EXPECT_EQ(defaults.num_key_value_heads, 8);
  // Llama has no window, whatever its config says.
  EXPECT_EQ(parse_model_config(llama_json(R"("sliding_window": 512)")).window(0), 0);
  EXPECT_EQ(parse_error(llama_json(R"("sliding_window": 0)", "mistral")), "config.json: sliding_window must be from 1 to 16777216, got 0");
  EXPECT_EQ(parse_error(llama_json(R"("sliding_window": "4k")", "mistral")), "config.json: sliding_window must be an integer, got \"4k\"");
}

// gemma-3-270m's config.json (v4 layout), its fields replaced or added by `extra`.
std::string gemma_json(const std::string& extra = "") {
  nlohmann::json c = nlohmann::json::parse(R"({"model_type": "gemma3_text", "vocab_size": 262144, "hidden_size": 640,
      "num_hidden_layers": 18, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 2048,
      "max_position_embeddings": 32768, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0,
      "rope_scaling": null, "rope_theta": 1000000.0, "sliding_window": 512, "hidden_activation": "gelu_pytorch_tanh",
      "attn_logit_softcapping": null, "final_logit_softcapping": null, "use_bidirectional_attention": false})");
  c.update(nlohmann::json::parse("{" + extra + "}"));
  return c.dump();
}

TEST(RotaryConfig, Gemma3_270mSlidesOver512KeysButInLayers5_11And17) {
  const ModelConfig c = parse_model_config(gemma_json());
  for (int l = 0; l < 18; ++l) EXPECT_EQ(c.window(l), l == 5 || l == 11 || l == 17 ? 0 : 512) << l;
  EXPECT_DOUBLE_EQ(c.rope_of(0).theta, 10000);    // sliding: rope_local_base_freq
  EXPECT_DOUBLE_EQ(c.rope_of(5).theta, 1000000);  // full: rope_theta
  EXPECT_DOUBLE_EQ(c.attention(Stack::encoder, 0).scale, 1.0 / 16);  // query_pre_attn_scalar^−½
  EXPECT_EQ(c.attention(Stack::encoder, 0).softcap, 0);
  EXPECT_EQ(c.logit_softcap, 0);
  EXPECT_EQ(c.activation, Activation::gelu_tanh);
  EXPECT_EQ(c.lm_head(), LmHead::tied);  // Gemma3TextConfig's default
  EXPECT_EQ(c.attention(Stack::encoder, 0).n_kv_heads, 1);
  EXPECT_EQ(c.attention(Stack::encoder, 0).n_heads * c.attention(Stack::encoder, 0).d_head, 1024);  // not hidden_size (640)
}

TEST(RotaryConfig, GemmaLayerTypesAndTheV5NestedRopeParameters) {
  const ModelConfig c = parse_model_config(gemma_json(
      R"("num_hidden_layers": 3, "layer_types": ["full_attention", "sliding_attention", "full_attention"],
         "rope_theta": null, "rope_local_base_freq": null,
         "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                             "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},
         "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0)"));
  EXPECT_EQ(c.windows, std::vector<int>({0, 512, 0}));
  EXPECT_EQ(c.rope_of(0).scaling, RopeScaling::linear);
  EXPECT_DOUBLE_EQ(c.rope_of(0).factor, 8);
  EXPECT_EQ(c.rope_of(1).scaling, RopeScaling::none);
  EXPECT_DOUBLE_EQ(c.rope_of(1).theta, 10000);
  EXPECT_DOUBLE_EQ(c.attention(Stack::encoder, 1).softcap, 50);
  EXPECT_DOUBLE_EQ(c.logit_softcap, 30);
  // An older config's sliding_window_pattern: every third layer full.
  EXPECT_EQ(parse_model_config(gemma_json(R"("num_hidden_layers": 4, "sliding_window_pattern": 3)")).windows,
            std::vector<int>({512, 512, 0, 512}));
}

TEST(RotaryConfig, Qwen3sHeadDimIs128WhenAbsentAndHiddenOverHeadsWhenNull) {
  nlohmann::json c = nlohmann::json::parse(llama_json("", "qwen3"));
  c.erase("head_dim");
  EXPECT_EQ(parse_model_config(c.dump()).head_dim, 128);
  c["head_dim"] = nullptr;
  EXPECT_EQ(parse_model_config(c.dump()).head_dim, 64);
}

TEST(RotaryConfigErrors, GemmasFieldsAreCheckedByName) {
  EXPECT_EQ(parse_error(gemma_json(R"("num_hidden_layers": 2, "layer_types": ["full_attention"])")),
            "config.json: layer_types must be a list of 2 layer types, one per layer, got [\"full_attention\"]");
  EXPECT_EQ(parse_error(gemma_json(R"("num_hidden_layers": 2, "layer_types": ["full_attention", "chunked_attention"])")),
            "config.json: layer_types[1] must be \"sliding_attention\" or \"full_attention\", got \"chunked_attention\"");
  EXPECT_EQ(parse_error(gemma_json(R"("use_bidirectional_attention": true)")),
            "config.json: use_bidirectional_attention must be false, got true; the engine implements only false");
  EXPECT_EQ(parse_error(gemma_json(R"("attn_logit_softcapping": -1)")),
            "config.json: attn_logit_softcapping must be a positive number or null, got -1");
  EXPECT_EQ(parse_error(gemma_json(R"("query_pre_attn_scalar": null)")),
            "config.json: query_pre_attn_scalar must be a positive number, got null");
  EXPECT_EQ(parse_error(gemma_json(R"("rope_local_base_freq": 0.5)")), "config.json: RoPE theta must be a finite number above 1, got 0.500000");
  EXPECT_EQ(parse_error(gemma_json(R"("sliding_window_pattern": 0)")), "config.json: sliding_window_pattern must be from 1 to 64, got 0");
}

TEST(RotaryConfigErrors, WhatThePassDoesNotImplementIsRefusedByName) {
  EXPECT_EQ(parse_error(llama_json(R"("rope_scaling": {"rope_type": "yarn", "factor": 4.0})")),
            "config.json: rope_scaling.rope_type \"yarn\" is not supported; the engine implements \"default\", \"linear\" and \"llama3\"");
  EXPECT_EQ(parse_error(llama_json(R"("rope_parameters": {"rope_type": "dynamic", "factor": 2.0})")),
            "config.json: rope_parameters.rope_type \"dynamic\" is not supported; the engine implements \"default\", \"linear\" and \"llama3\"");
  EXPECT_EQ(parse_error(llama_json(R"("attention_bias": true)")),
            "config.json: attention_bias must be false, got true; the engine implements only false");
  EXPECT_EQ(parse_error(llama_json(R"("mlp_bias": true)")), "config.json: mlp_bias must be false, got true; the engine implements only false");
  EXPECT_EQ(parse_error(llama_json(R"("use_sliding_window": true)", "qwen2")),
            "config.json: use_sliding_window must be false, got true; the engine implements only false");
}

TEST(RotaryConfigErrors, BadValuesAreNamed) {
  EXPECT_EQ(parse_error(llama_json(R"("num_key_value_heads": 2)")),
            "config.json: num_attention_heads (9) must be a multiple of num_key_value_heads (2)");
  EXPECT_EQ(parse_error(llama_json(R"("rope_scaling": {"rope_type": "llama3", "factor": 8.0})")),
            "config.json: rope_scaling.low_freq_factor is missing");
  EXPECT_EQ(parse_error(llama_json(R"("rope_scaling": {"rope_type": "linear", "factor": "2"})")),
            "config.json: rope_scaling.factor must be a number, got \"2\"");
  EXPECT_EQ(parse_error(llama_json(R"("rope_scaling": [1])")), "config.json: rope_scaling must be an object or null, got [1]");
  EXPECT_EQ(parse_error(llama_json(R"("rope_theta": 1)")), "config.json: RoPE theta must be a finite number above 1, got 1.000000");
  EXPECT_EQ(parse_error(llama_json(R"("head_dim": 100000)")), "config.json: head_dim must be from 1 to 4096, got 100000");
  EXPECT_EQ(parse_error(llama_json(R"("max_position_embeddings": 100000000)")),
            "config.json: max_position_embeddings must be from 1 to 16777216, got 100000000");
  EXPECT_EQ(parse_error(llama_json(R"("hidden_act": "quick_gelu")")).substr(0, 42), "config.json: hidden_act must be one of \"ge");
}

}  // namespace
}  // namespace multihead::testing
