// SafetensorsFile: reading F32/F16/BF16, and a clear error for every kind of malformed file.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "multihead/safetensors.h"
#include "safetensors_writer.h"

namespace multihead::testing {
namespace {

void expect_rejected(std::vector<uint8_t> bytes, const std::string& part) {
  try {
    SafetensorsFile file(std::move(bytes));
    FAIL() << "accepted a file that should fail with: " << part;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Safetensors, ReadsF32TensorsByName) {
  const SafetensorsFile file(safetensors_bytes({{"a", {{2, 3}, {1, 2, 3, 4, 5, 6}}}, {"b", {{1}, {-7.5f}}}}));
  EXPECT_EQ(file.info("a").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(file.read("a"), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(file.read("b"), (std::vector<float>{-7.5f}));
  EXPECT_EQ(file.tensors().size(), 2u);
}

TEST(Safetensors, ConvertsF16AndBF16ToFloatIncludingSubnormalsAndInfinity) {
  // F16: 1, -2, 0.5, 65504 (largest), 2^-24 (smallest subnormal), +inf. BF16: 1, -3.
  auto bytes = raw_safetensors(R"({"h":{"dtype":"F16","shape":[6],"data_offsets":[0,12]},)"
                               R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[12,16]}})", 16);
  const uint16_t values[] = {0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001, 0x7C00, 0x3F80, 0xC040};
  const size_t data = bytes.size() - 16;
  for (int i = 0; i < 8; ++i) {
    bytes[data + 2 * i] = uint8_t(values[i]);
    bytes[data + 2 * i + 1] = uint8_t(values[i] >> 8);
  }
  const SafetensorsFile file(std::move(bytes));
  const auto h = file.read("h");
  EXPECT_EQ(h[0], 1.0f);
  EXPECT_EQ(h[1], -2.0f);
  EXPECT_EQ(h[2], 0.5f);
  EXPECT_EQ(h[3], 65504.0f);
  EXPECT_EQ(h[4], std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(h[5]));
  EXPECT_EQ(file.read("b"), (std::vector<float>{1.0f, -3.0f}));
}

TEST(Safetensors, MalformedFilesGetClearErrors) {
  expect_rejected({1, 2, 3}, "too short for the 8-byte header length");
  expect_rejected({255, 255, 0, 0, 0, 0, 0, 0, '{', '}'},
                  "header length 65535 is larger than the rest of the file (2 bytes)");
  expect_rejected(raw_safetensors("{not json", 0), "not valid JSON");
  expect_rejected(raw_safetensors("[1, 2]", 0), "must be a JSON object");
  expect_rejected(raw_safetensors(R"({"w":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", 8),
                  "tensor 'w' has dtype I64; only F32, F16 and BF16");
  expect_rejected(raw_safetensors(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 12),
                  "tensor 'w' has data_offsets [0, 16] outside the data section (12 bytes)");
  expect_rejected(raw_safetensors(R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}})", 12),
                  "tensor 'w' has 4 F32 values but data_offsets cover 12 bytes");
  expect_rejected(raw_safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                  R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12),
                  "tensors 'a' and 'b' overlap");
  expect_rejected(raw_safetensors(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4),
                  "tensor 'w' shape entry must be a non-negative integer");
  expect_rejected(raw_safetensors(R"({"w":{"dtype":"F32","shape":[1]}})", 4), "tensor 'w' needs data_offsets");
  expect_rejected(raw_safetensors(R"({"w":{"dtype":"F32","shape":[4294967295,4294967295,4294967295],"data_offsets":[0,4]}})", 4),
                  "impossibly large shape");
}

TEST(Safetensors, ATruncatedFileIsRejectedAtEveryLength) {
  const auto whole = safetensors_bytes({{"a", {{3, 5}, std::vector<float>(15, 1.0f)}}});
  for (size_t length = 0; length < whole.size(); ++length) {
    EXPECT_THROW(SafetensorsFile(std::vector<uint8_t>(whole.begin(), whole.begin() + length)), std::invalid_argument)
        << "length " << length;
  }
}

TEST(Safetensors, AMissingTensorIsNamed) {
  const SafetensorsFile file(safetensors_bytes({{"a", {{1}, {1}}}}));
  EXPECT_THROW(file.read("b"), std::invalid_argument);
  try {
    file.info("encoder.layer.0.x");
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "model.safetensors has no tensor 'encoder.layer.0.x'");
  }
}

}  // namespace
}  // namespace multihead::testing
