// config.json of the encoder–decoders (T5, BART, Marian): each one's defaults as its transformers
// Config class has them, the fields that change the math (T5's feed_forward_proj and relative
// buckets, BART's position rows, Marian's embedding scale), and what the engine refuses by name;
// and the loader's messages for their files: a missing cross-attention tensor, a stray one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "fixture_files.h"
#include "message_of.h"
#include "multihead/config.h"
#include "multihead/model_loader.h"

namespace multihead::testing {
namespace {

std::string with(const std::string& model_type, const std::string& extra = "") {
  nlohmann::json c = nlohmann::json::parse("{" + extra + "}");
  c["model_type"] = model_type;
  return c.dump();
}

std::string parse_error(const std::string& json) { return message_of<std::exception>([&] { parse_model_config(json); }); }

TEST(Seq2SeqConfig, T5sDefaultsAreT5Smalls) {
  const ModelConfig c = parse_model_config(with("t5"));
  EXPECT_EQ(c.hidden_size, 512);
  EXPECT_EQ(c.num_hidden_layers, 6);
  EXPECT_EQ(c.num_decoder_layers, 6);  // num_layers', when absent
  EXPECT_EQ(c.num_attention_heads, 8);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.relative_buckets, 32);
  EXPECT_EQ(c.relative_max_distance, 128);
  EXPECT_EQ(c.max_tokens(), 512);
  EXPECT_EQ(c.mlp(), Mlp::dense);
  EXPECT_EQ(c.activation, Activation::relu);
  EXPECT_EQ(c.lm_head(), LmHead::tied);
  EXPECT_FLOAT_EQ(c.head_scale, 1 / std::sqrt(512.0f));
  EXPECT_EQ(c.attention(Stack::encoder).score_scale(), 1.0);  // no 1/√d_kv
  EXPECT_FALSE(c.attention(Stack::encoder).causal);
  EXPECT_TRUE(c.attention(Stack::decoder).causal);
  EXPECT_FALSE(c.attention(Stack::cross).causal);
  EXPECT_TRUE(c.attention(Stack::cross).ordered_queries);
  EXPECT_EQ(c.attention_layers(), 18);
}

TEST(Seq2SeqConfig, FeedForwardProjNamesTheMlpAndItsActivation) {
  const ModelConfig flan = parse_model_config(with("t5", R"("feed_forward_proj": "gated-gelu", "tie_word_embeddings": false)"));
  EXPECT_EQ(flan.mlp(), Mlp::gated);
  EXPECT_EQ(flan.activation, Activation::gelu_tanh);  // T5Config maps gated-gelu to gelu_new
  EXPECT_EQ(flan.lm_head(), LmHead::untied);
  EXPECT_EQ(flan.head_scale, 1);  // only a tied head is scaled
  EXPECT_EQ(parse_model_config(with("t5", R"("feed_forward_proj": "gated-silu")")).activation, Activation::silu);
  EXPECT_EQ(parse_model_config(with("t5", R"("feed_forward_proj": "gelu")")).activation, Activation::gelu_erf);
  // What the file says besides wins, as T5Config sets every field the file has after deriving them.
  const ModelConfig given = parse_model_config(with("t5", R"("feed_forward_proj": "gated-gelu", "dense_act_fn": "gelu", "is_gated_act": false)"));
  EXPECT_EQ(given.mlp(), Mlp::dense);
  EXPECT_EQ(given.activation, Activation::gelu_erf);
  EXPECT_EQ(parse_error(with("t5", R"("feed_forward_proj": "gated-relu-x")")),
            R"(config.json: feed_forward_proj must be "<activation>" or "gated-<activation>", got "gated-relu-x")");
  EXPECT_EQ(parse_error(with("t5", R"("feed_forward_proj": 3)")),
            R"(config.json: feed_forward_proj must be "<activation>" or "gated-<activation>", got 3)");
  EXPECT_EQ(parse_error(with("t5", R"("feed_forward_proj": "gated-tanh")")).rfind("config.json: feed_forward_proj must be one of \"gelu", 0), 0u);
}

TEST(Seq2SeqConfig, RelativeBucketsThatCannotWorkAreRefused) {
  EXPECT_EQ(parse_error(with("t5", R"("relative_attention_num_buckets": 2)")),
            "config.json: relative_attention_num_buckets must be from 4 to 1024, got 2");
  EXPECT_EQ(parse_error(with("t5", R"("relative_attention_max_distance": 16)")),
            "config.json: relative_attention_max_distance (16) must be above half of relative_attention_num_buckets (32)");
  EXPECT_EQ(parse_error(with("t5", R"("num_decoder_layers": 0)")), "config.json: num_decoder_layers must be from 1 to 64, got 0");
}

TEST(Seq2SeqConfig, BartsPositionTableHasTwoRowsMore) {
  const ModelConfig c = parse_model_config(with("bart", R"("d_model": 768, "encoder_attention_heads": 12, "decoder_attention_heads": 12,
      "encoder_layers": 6, "decoder_layers": 6, "max_position_embeddings": 1024)"));
  EXPECT_EQ(c.max_position_embeddings, 1026);  // rows: read at position + 2
  EXPECT_EQ(c.position_offset, 2);
  EXPECT_EQ(c.max_tokens(), 1024);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.layer_norm_eps, 1e-5f);
  EXPECT_EQ(c.embedding_scale, 1);  // scale_embedding false by default
  EXPECT_EQ(c.attention(Stack::encoder).score_scale(), 0.125);
}

TEST(Seq2SeqConfig, TheEncodersAndDecodersSizesMustAgree) {
  EXPECT_EQ(parse_error(with("bart", R"("d_model": 768, "encoder_attention_heads": 12, "decoder_attention_heads": 8)")),
            "config.json: decoder_attention_heads (8) must equal encoder_attention_heads (12): the engine's encoder and decoder have one "
            "size of each");
  EXPECT_EQ(parse_error(with("marian", R"("encoder_ffn_dim": 2048, "decoder_ffn_dim": 4096)")).rfind(
                "config.json: decoder_ffn_dim (4096) must equal encoder_ffn_dim (2048)", 0),
            0u);
}

TEST(Seq2SeqConfig, MarianScalesItsEmbeddingsWhenTheConfigSays) {
  const std::string opus = R"("d_model": 512, "encoder_attention_heads": 8, "decoder_attention_heads": 8, "max_position_embeddings": 512,
      "activation_function": "swish", "vocab_size": 58101)";
  const ModelConfig c = parse_model_config(with("marian", opus + R"(, "scale_embedding": true)"));
  EXPECT_FLOAT_EQ(c.embedding_scale, std::sqrt(512.0f));
  EXPECT_EQ(c.activation, Activation::silu);
  EXPECT_EQ(c.max_tokens(), 512);
  EXPECT_EQ(parse_model_config(with("marian", opus)).embedding_scale, 1);
  EXPECT_EQ(parse_error(with("marian", opus + R"(, "scale_embedding": "yes")")), R"(config.json: scale_embedding must be true or false, got "yes")");
  EXPECT_EQ(parse_error(with("marian", opus + R"(, "share_encoder_decoder_embeddings": false)")),
            "config.json: share_encoder_decoder_embeddings must be true, got false; the engine implements only true");
}

// What loading a fixture checkpoint's file says with one tensor dropped (its bytes too) or renamed.
std::string load_error(const std::string& folder, const std::string& drop, const std::string& rename_to = "") {
  const std::vector<uint8_t> bytes = read_file(folder + "/model.safetensors");
  uint64_t length = 0;
  std::memcpy(&length, bytes.data(), 8);
  const size_t data = 8 + size_t(length);
  const nlohmann::json header = nlohmann::json::parse(std::string(bytes.begin() + 8, bytes.begin() + std::ptrdiff_t(data)));
  std::vector<std::pair<uint64_t, std::string>> order;  // the tensors by their place in the data
  for (const auto& [name, info] : header.items()) {
    if (name != "__metadata__" && (name != drop || !rename_to.empty())) order.emplace_back(info["data_offsets"][0].get<uint64_t>(), name);
  }
  std::sort(order.begin(), order.end());
  nlohmann::json out = {{"__metadata__", header["__metadata__"]}};
  std::vector<uint8_t> values;
  for (const auto& [begin, name] : order) {
    nlohmann::json info = header[name];
    const uint64_t end = info["data_offsets"][1];
    info["data_offsets"] = {values.size(), values.size() + (end - begin)};
    values.insert(values.end(), bytes.begin() + std::ptrdiff_t(data + begin), bytes.begin() + std::ptrdiff_t(data + end));
    out[name == drop ? rename_to : name] = info;
  }
  std::string text = out.dump();
  text += std::string((8 - text.size() % 8) % 8, ' ');
  std::vector<uint8_t> file(8);
  const uint64_t size = text.size();
  std::memcpy(file.data(), &size, 8);
  file.insert(file.end(), text.begin(), text.end());
  file.insert(file.end(), values.begin(), values.end());
  return message_of<std::invalid_argument>([&] {
    ModelLoader loader(read_config(folder), SafetensorsHeader(file.data(), file.size()));
    loader.write(file.data() + 8 + text.size(), values.size());
    loader.finish();
  });
}

TEST(Seq2SeqLoader, AMissingOrStrayCrossAttentionTensorIsNamed) {
  const std::string fixtures = std::string(MULTIHEAD_FIXTURES_DIR) + "/seq2seq/";
  EXPECT_EQ(load_error(fixtures + "marian", "model.decoder.layers.1.encoder_attn.k_proj.weight", "model.decoder.layers.1.encoder_attn.x.weight"),
            "model.safetensors: tensor 'model.decoder.layers.1.encoder_attn.x.weight' is not a weight of a 2 + 3-layer marian model");
  EXPECT_NE(load_error(fixtures + "t5-small", "decoder.block.2.layer.1.EncDecAttention.q.weight").find(
                "the file has no tensor 'decoder.block.2.layer.1.EncDecAttention.q.weight'"),
            std::string::npos);
  // The decoder's layer 3 does not exist: a tensor of it is another model's.
  EXPECT_EQ(load_error(fixtures + "t5-small", "decoder.block.2.layer.2.layer_norm.weight", "decoder.block.3.layer.2.layer_norm.weight"),
            "model.safetensors: tensor 'decoder.block.3.layer.2.layer_norm.weight' is not a weight of a 2 + 3-layer t5 model");
  // Every stored name of the shared embeddings missing: the one the loader reads is named.
  const std::string none = load_error(fixtures + "flan-t5", "decoder.embed_tokens.weight");
  EXPECT_NE(none.find("the file has no tensor 'shared.weight'"), std::string::npos) << none;
}

}  // namespace
}  // namespace multihead::testing
