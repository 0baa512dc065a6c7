// config.json and loading a Model from files: one test per message a hostile or broken file can
// produce, each checking the whole message (the file, the field, the value as written), and the
// nesting limit that keeps deep JSON from overflowing the stack. The forward pass is model_test.cpp's.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "multihead/model.h"
#include "message_of.h"
#include "model_run.h"
#include "safetensors_writer.h"

namespace multihead::testing {
namespace {

const BertSize kSize{/*vocab*/ 12, /*d*/ 8, /*layers*/ 2, /*ff*/ 12, /*positions*/ 10, /*types*/ 2};

std::string config_error(const std::string& extra) {
  return message_of<std::exception>([&] { parse_model_config(bert_config_json(kSize, 2, extra)); });
}

std::string nested(int depth, const std::string& inner = "") { return std::string(depth, '[') + inner + std::string(depth, ']'); }

TEST(Config, ParsesTheDefaultModelsConfigAndCountsItsWeights) {
  std::ifstream in(MULTIHEAD_MODELS_DIR "/default/config.json");
  const ModelConfig c = parse_model_config(std::string(std::istreambuf_iterator<char>(in), {}));
  EXPECT_EQ(c.vocab_size, 6000);
  EXPECT_EQ(c.hidden_size, 128);
  EXPECT_EQ(c.num_hidden_layers, 4);
  EXPECT_EQ(c.type_vocab_size, 2);
  EXPECT_FLOAT_EQ(c.layer_norm_eps, 1e-12f);
  // Every value of the default model's 69 body tensors, as float32 (its MLM head, cls.predictions.*,
  // is not counted: model_weight_bytes is the size check of the body).
  std::ifstream weights(MULTIHEAD_MODELS_DIR "/default/model.safetensors", std::ios::binary);
  const SafetensorsFile file(std::vector<uint8_t>(std::istreambuf_iterator<char>(weights), {}));
  size_t values = 0, tensors = 0;
  for (const auto& [name, t] : file.tensors()) {
    if (name.rfind("cls.", 0) == 0) continue;
    values += t.size();
    ++tensors;
  }
  EXPECT_EQ(tensors, 69u);
  EXPECT_EQ(model_weight_bytes(c), 4.0 * double(values));
}

TEST(Config, AcceptsNestingAsRealConfigsHaveIt) {
  // id2label and a quantization block nest three levels, as Hugging Face configs do.
  const ModelConfig c = parse_model_config(bert_config_json(kSize, 2, R"("id2label": {"0": "A"}, "q": {"a": {"b": [1, {"c": []}]}})"));
  EXPECT_EQ(c.hidden_size, 8);
}

TEST(ConfigErrors, JsonNestedTenThousandLevelsDeepIsRefusedBeforeParsing) {
  // Regression: dump() in the error message recursed once per level and overflowed the WASM stack.
  for (const char* field : {"model_type", "hidden_act", "vocab_size"}) {
    EXPECT_EQ(config_error(std::string("\"") + field + "\": " + nested(10000)), "config.json: JSON nested deeper than 64 levels") << field;
    EXPECT_EQ(config_error(std::string("\"") + field + "\": " + nested(100000, "{\"a\": 1}")),
              "config.json: JSON nested deeper than 64 levels") << field;
  }
}

TEST(ConfigErrors, TheNestingLimitIs64LevelsCountingTheFileItself) {
  // The file's own object is level 1: 63 more brackets reach 64 and pass to the field check.
  EXPECT_EQ(config_error("\"vocab_size\": " + nested(63)),
            "config.json: vocab_size must be an integer, got " + nested(63).substr(0, 80) + "…");
  EXPECT_EQ(config_error("\"vocab_size\": " + nested(64)), "config.json: JSON nested deeper than 64 levels");
  EXPECT_EQ(config_error("\"x\": " + std::string(70, '{') + std::string(70, '}')), "config.json: JSON nested deeper than 64 levels");
}

TEST(ConfigErrors, BracketsInsideStringsAreNotNesting) {
  EXPECT_EQ(config_error(R"("model_type": "[[[[{{{{\"[[[[")" + std::string("")),
            R"(config.json: model_type "[[[[{{{{\"[[[[" is not supported; supported model types are )" + architecture_list());
  const std::string deep_text = "\"" + std::string(1000, '[') + "\"";
  EXPECT_EQ(config_error("\"hidden_act\": " + deep_text), "config.json: hidden_act must be one of \"gelu\", \"gelu_new\", \"gelu_pytorch_tanh\", \"silu\", \"swish\", \"relu\", got \"" +
                                                            std::string(79, '[') + "…");
}

TEST(ConfigErrors, AnUnsignedValueIsReportedAsWrittenNotWrapped) {
  // Regression: the value was read as int64, so the message said "got -1".
  EXPECT_EQ(config_error(R"("hidden_size": 18446744073709551615)"), "config.json: hidden_size must be from 1 to 4096, got 18446744073709551615");
  EXPECT_EQ(config_error(R"("vocab_size": 9223372036854775808)"), "config.json: vocab_size must be from 1 to 1048576, got 9223372036854775808");
  EXPECT_EQ(config_error(R"("num_hidden_layers": -3)"), "config.json: num_hidden_layers must be from 1 to 64, got -3");
  EXPECT_EQ(config_error(R"("intermediate_size": 1e20)"), "config.json: intermediate_size must be an integer, got 1e+20");
}

TEST(ConfigErrors, ATinyLayerNormEpsIsReportedAsWrittenWithTheFileName) {
  // Regression: 1e-50 became the float 0, reported as "got 0.000000" with no config.json prefix.
  EXPECT_EQ(config_error(R"("layer_norm_eps": 1e-50)"),
            "config.json: layer_norm_eps must be from 1.2e-38 (the smallest normal float) to below 1, got 1e-50");
  EXPECT_EQ(config_error(R"("layer_norm_eps": 2.5)"),
            "config.json: layer_norm_eps must be from 1.2e-38 (the smallest normal float) to below 1, got 2.5");
  EXPECT_EQ(config_error(R"("layer_norm_eps": "1e-12")"), "config.json: layer_norm_eps must be a number, got \"1e-12\"");
  EXPECT_FLOAT_EQ(parse_model_config(bert_config_json(kSize, 2, R"("layer_norm_eps": 1e-5)")).layer_norm_eps, 1e-5f);
}

TEST(ConfigErrors, HeadsThatDoNotDivideTheWidthAreNamedAsConfigJsonNamesThem) {
  // Regression: the message was the attention layer's "d_model (127) must be divisible by n_heads (4)".
  EXPECT_EQ(message_of<std::invalid_argument>([] { parse_model_config(bert_config_json({12, 127, 2, 12, 10, 2}, 4)); }),
            "config.json: hidden_size (127) must be divisible by num_attention_heads (4)");
}

TEST(ConfigErrors, AModelTooLargeForTheHeapIsRefusedBeforeAllocatingNamingItsFields) {
  // Regression: each field was within its own limit, so a config asking for 70 GiB passed.
  const std::string message = message_of<std::length_error>([] {
    parse_model_config(bert_config_json({1048576, 4096, 64, 16384, 512, 2}, 64));
  });
  EXPECT_EQ(message, "config.json: vocab_size (1048576), hidden_size (4096), num_hidden_layers (64), intermediate_size (16384) and "
                     "max_position_embeddings (512) make 32.01 GiB of weights even as bfloat16, above the limit of 2.50 GiB");
  // bert-base's size passes.
  EXPECT_NO_THROW(parse_model_config(bert_config_json({30522, 768, 12, 3072, 512, 2}, 12)));
}

TEST(ConfigErrors, EveryErrorStartsWithConfigJson) {
  const std::string base = bert_config_json(kSize, 2);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{", "config.json: not valid JSON (parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal)"},
      {"", "config.json: not valid JSON (parse error at line 1, column 1: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal)"},
      {"[1, 2]", "config.json: must be a JSON object, got array"},
      {R"({"vocab_size": 1e400})", "config.json: not valid JSON (number overflow parsing '1e400')"},
      {"{}", "config.json: model_type is missing; supported model types are " + architecture_list()},
      {R"({"model_type": "xlnet"})", "config.json: model_type \"xlnet\" is not supported; supported model types are " + architecture_list()},
      {R"({"model_type": ["bert"]})", "config.json: model_type [\"bert\"] is not supported; supported model types are " + architecture_list()},
      {R"({"model_type": "bert", "hidden_act": "quick_gelu"})", "config.json: hidden_act must be one of \"gelu\", \"gelu_new\", \"gelu_pytorch_tanh\", \"silu\", \"swish\", \"relu\", got \"quick_gelu\""},
      {R"({"model_type": "bert"})", "config.json: vocab_size is missing"},
      {R"({"model_type": "bert", "vocab_size": "12"})", "config.json: vocab_size must be an integer, got \"12\""},
      {R"({"model_type": "bert", "vocab_size": 12.5})", "config.json: vocab_size must be an integer, got 12.5"},
      {R"({"model_type": "bert", "vocab_size": 0})", "config.json: vocab_size must be from 1 to 1048576, got 0"},
      {base.substr(0, base.size() - 1) + R"(, "type_vocab_size": 17})", "config.json: type_vocab_size must be from 1 to 16, got 17"},
      {base.substr(0, base.size() - 1) + R"(, "max_position_embeddings": 4097})", "config.json: max_position_embeddings must be from 1 to 4096, got 4097"},
  };
  for (const auto& c : cases) {  // not a structured binding: clang 14 cannot capture one
    EXPECT_EQ(message_of<std::exception>([&] { parse_model_config(c.first); }), c.second) << c.first;
  }
}

TEST(ConfigErrors, AModelConfigBuiltInCodeIsCheckedByTheModelWithItsFieldNames) {
  const SafetensorsFile file(safetensors_bytes(bert_tensors(kSize)));
  ModelConfig c{.architecture = find_architecture("bert"), .vocab_size = 12, .hidden_size = 8, .num_hidden_layers = 2,
                .num_attention_heads = 4, .num_key_value_heads = 3, .head_dim = 2, .intermediate_size = 12,
                .max_position_embeddings = 10, .type_vocab_size = 2, .layer_norm_eps = 1e-12f};
  EXPECT_EQ(message_of<std::invalid_argument>([&] { Model(c, file); }),
            "ModelConfig: num_attention_heads (4) must be a multiple of num_key_value_heads (3)");
  c = {.architecture = find_architecture("bert"), .vocab_size = 12, .hidden_size = 8, .num_hidden_layers = 2, .num_attention_heads = 2,
       .num_key_value_heads = 2, .head_dim = 4, .intermediate_size = 12, .max_position_embeddings = 10, .type_vocab_size = 2,
       .layer_norm_eps = 0.0f};
  EXPECT_EQ(message_of<std::length_error>([&] { Model(c, file); }),
            "ModelConfig: layer_norm_eps must be from 1.2e-38 (the smallest normal float) to below 1, got 0");
}

ModelConfig tiny_config() { return parse_model_config(bert_config_json(kSize, 2)); }

TEST(ModelFiles, ATinyModelLoadsFromF32F16AndBF16Files) {
  for (const char* dtype : {"F32", "F16", "BF16"}) {
    const Model model(tiny_config(), SafetensorsFile(safetensors_bytes(bert_tensors(kSize), "", dtype)));
    const CollectedRun trace = run_collecting(model, {2, 5, 6, 3});
    EXPECT_EQ(trace.layers.size(), 2u) << dtype;
    EXPECT_EQ(trace.run.hidden.rows(), 4) << dtype;
  }
}

TEST(ModelFiles, EveryTensorErrorStartsWithModelSafetensors) {
  auto tensors = bert_tensors(kSize);
  tensors.erase("encoder.layer.1.output.dense.bias");
  // Regression: this one said "model.safetensors has no tensor", without the colon the others have.
  EXPECT_EQ(message_of<std::invalid_argument>([&] { Model(tiny_config(), SafetensorsFile(safetensors_bytes(tensors))); }),
            "model.safetensors: the file has no tensor 'encoder.layer.1.output.dense.bias'");
  tensors = bert_tensors(kSize);
  tensors["encoder.layer.0.attention.self.key.weight"].shape = {4, 16};
  EXPECT_EQ(message_of<std::invalid_argument>([&] { Model(tiny_config(), SafetensorsFile(safetensors_bytes(tensors))); }),
            "model.safetensors: tensor 'encoder.layer.0.attention.self.key.weight' has shape [4, 16], expected [8, 8] from config.json");
  tensors = bert_tensors(kSize);
  tensors["embeddings.LayerNorm.bias"].values[3] = INFINITY;
  EXPECT_EQ(message_of<std::invalid_argument>([&] { Model(tiny_config(), SafetensorsFile(safetensors_bytes(tensors))); }),
            "model.safetensors: tensor 'embeddings.LayerNorm.bias' value 3 is not finite");
  tensors = bert_tensors(kSize, "bert.");
  tensors.erase("bert.embeddings.LayerNorm.weight");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { Model(tiny_config(), SafetensorsFile(safetensors_bytes(tensors))); }),
            "model.safetensors: the file has no tensor 'bert.embeddings.LayerNorm.weight'");
}

}  // namespace
}  // namespace multihead::testing

namespace multihead::testing {
namespace {

std::string parse_error(const std::string& json) { return message_of<std::exception>([&] { parse_model_config(json); }); }

TEST(Config, ReadsEachArchitectureInItsOwnFieldNames) {
  const ModelConfig d = parse_model_config(distilbert_config_json({30, 12, 3, 20, 9, 0}, 3));
  EXPECT_EQ(d.architecture, find_architecture("distilbert"));
  EXPECT_EQ(d.hidden_size, 12);
  EXPECT_EQ(d.num_hidden_layers, 3);
  EXPECT_EQ(d.num_attention_heads, 3);
  EXPECT_EQ(d.intermediate_size, 20);
  EXPECT_EQ(d.type_vocab_size, 0);
  EXPECT_FLOAT_EQ(d.layer_norm_eps, 1e-12f);
  const ModelConfig g = parse_model_config(R"({"model_type": "gpt2", "vocab_size": 50, "n_embd": 16, "n_layer": 2, "n_head": 4,
                                               "n_inner": null, "n_ctx": 20, "activation_function": "gelu_new"})");
  EXPECT_EQ(g.architecture, find_architecture("gpt2"));
  EXPECT_EQ(g.intermediate_size, 64);  // n_inner null: 4 · n_embd
  EXPECT_EQ(g.max_position_embeddings, 20);  // n_ctx, as older GPT-2 configs name n_positions
  EXPECT_EQ(g.activation, Activation::gelu_tanh);
  EXPECT_FLOAT_EQ(g.layer_norm_eps, 1e-5f);  // layer_norm_epsilon's default
  EXPECT_EQ(g.type_vocab_size, 0);
  const ModelConfig r = parse_model_config(bert_config_json({50, 16, 2, 24, 514, 1}, 4, R"("pad_token_id": 1)", "roberta"));
  EXPECT_EQ(r.architecture, find_architecture("roberta"));
  EXPECT_EQ(r.position_offset, 2);
  EXPECT_EQ(r.max_tokens(), 512);  // 514 rows − padding_idx − 1
  EXPECT_EQ(parse_model_config(bert_config_json(kSize, 2)).activation, Activation::gelu_erf);
}

TEST(ConfigErrors, OptionsTheForwardPassDoesNotImplementAreRefusedByName) {
  const BertSize s{50, 16, 2, 24, 12, 2};
  EXPECT_EQ(parse_error(gpt2_config_json(s, 4, R"("scale_attn_by_inverse_layer_idx": true)")),
            "config.json: scale_attn_by_inverse_layer_idx must be false, got true; the engine implements only false");
  EXPECT_EQ(parse_error(gpt2_config_json(s, 4, R"("scale_attn_weights": false)")),
            "config.json: scale_attn_weights must be true, got false; the engine implements only true");
  EXPECT_EQ(parse_error(bert_config_json(s, 4, R"("position_embedding_type": "relative_key")")),
            "config.json: position_embedding_type must be \"absolute\", got \"relative_key\"; the engine implements only \"absolute\"");
  EXPECT_EQ(parse_error(bert_config_json(s, 4, R"("is_decoder": true)", "roberta")),
            "config.json: is_decoder must be false, got true; the engine implements only false");
  EXPECT_EQ(parse_error(distilbert_config_json(s, 4, R"("sinusoidal_pos_embds": true)")),
            "config.json: sinusoidal_pos_embds must be false, got true; the engine implements only false");
  const std::string activations = "\"gelu\", \"gelu_new\", \"gelu_pytorch_tanh\", \"silu\", \"swish\", \"relu\"";
  EXPECT_EQ(parse_error(gpt2_config_json(s, 4, R"("activation_function": "quick_gelu")")),
            "config.json: activation_function must be one of " + activations + ", got \"quick_gelu\"");
  EXPECT_EQ(parse_error(R"({"model_type": "distilbert", "activation": "gelu_fast"})"),
            "config.json: activation must be one of " + activations + ", got \"gelu_fast\"");
}

TEST(ConfigErrors, EachArchitecturesFieldsAreNamedAsItsConfigNamesThem) {
  EXPECT_EQ(parse_error(R"({"model_type": "gpt2", "vocab_size": 50, "n_layer": 2})"), "config.json: n_embd is missing");
  EXPECT_EQ(parse_error(R"({"model_type": "gpt2", "vocab_size": 50, "n_embd": 8192})"), "config.json: n_embd must be from 1 to 4096, got 8192");
  EXPECT_EQ(parse_error(R"({"model_type": "gpt2", "vocab_size": 50, "n_embd": 16, "n_layer": 2, "n_head": 4})"),
            "config.json: n_positions is missing");
  EXPECT_EQ(parse_error(R"({"model_type": "distilbert", "vocab_size": 50, "dim": 16, "n_layers": 2, "n_heads": 3, "hidden_dim": 8,
                            "max_position_embeddings": 8})"),
            "config.json: dim (16) must be divisible by n_heads (3)");
  EXPECT_EQ(parse_error(bert_config_json({50, 16, 2, 24, 12, 1}, 4, R"("pad_token_id": 11)", "roberta")),
            "config.json: max_position_embeddings (12) must be above the first position row (12)");
  EXPECT_EQ(parse_error(bert_config_json({50, 16, 2, 24, 12, 1}, 4, R"("pad_token_id": -1)", "roberta")),
            "config.json: pad_token_id must be from 0 to 4095, got -1");
}

}  // namespace
}  // namespace multihead::testing
