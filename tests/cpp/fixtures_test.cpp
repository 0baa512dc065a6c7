// The layer against torch.nn.MultiheadAttention (tests/fixtures/attention, made by
// tools/make_attention_fixtures.py) to 1e-5 absolute.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "multihead/kernels.h"
#include "reference.h"

namespace multihead::testing {
namespace {

const std::string kDir = std::string(MULTIHEAD_FIXTURES_DIR) + "/attention/";

struct Fixture {
  std::map<std::string, int> values;
  std::map<std::string, std::vector<float>> tensors;
  std::vector<uint8_t> key_mask;
};

template <class T>
std::vector<T> read_raw(const std::string& path, size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::vector<T> data(count);
  in.read(reinterpret_cast<char*>(data.data()), std::streamsize(count * sizeof(T)));
  if (!in || in.peek() != EOF) throw std::runtime_error(path + " does not hold exactly " + std::to_string(count) + " values");
  return data;
}

Fixture read_fixture(const std::string& name) {
  std::ifstream in(kDir + name + "/case.txt");
  if (!in) throw std::runtime_error("cannot open " + kDir + name + "/case.txt");
  Fixture f;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "tensor") {
      std::string tensor;
      size_t count = 1, dim;
      fields >> tensor;
      while (fields >> dim) count *= dim;
      f.tensors[tensor] = read_raw<float>(kDir + name + "/" + tensor + ".f32", count);
    } else if (!key.empty()) {
      fields >> f.values[key];
    }
  }
  if (f.values["key_mask"]) f.key_mask = read_raw<uint8_t>(kDir + name + "/key_mask.u8", f.values["n_tokens"]);
  return f;
}

class TorchFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(TorchFixture, MatchesTorchMultiheadAttentionTo1e5) {
  Fixture f = read_fixture(GetParam());
  const int n = f.values["n_tokens"], h = f.values["n_heads"];
  const AttentionConfig config = multi_head_config(f.values["d_model"], h, f.values["causal"] != 0);
  auto& t = f.tensors;
  const MultiHeadAttention attention(config, {t["wq"], t["wk"], t["wv"], t["wo"], t["bq"], t["bk"], t["bv"], t["bo"]});
  const AttentionTrace trace = attention.forward(t["x"], n, f.key_mask);

  const double weights_diff = max_abs_diff(ConstMatrixMap(trace.weights.data(), h * n, n),
                                           ConstMatrixMap(t["weights"].data(), h * n, n));
  const double output_diff = max_abs_diff(trace.output, ConstMatrixMap(t["output"].data(), n, config.d_model));
  std::printf("[ fixture  ] %-20s %-8s max |diff| weights %.3g, output %.3g\n", GetParam(),
              kernels::active_kernels().name, weights_diff, output_diff);
  EXPECT_LT(weights_diff, 1e-5);
  EXPECT_LT(output_diff, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Attention, TorchFixture,
                         ::testing::Values("n7_d12_h3", "n7_d12_h3_causal", "n7_d12_h3_keymask", "n33_d64_h4",
                                           "n33_d64_h4_causal"));

}  // namespace
}  // namespace multihead::testing
