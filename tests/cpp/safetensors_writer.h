// Test helper: writes safetensors bytes from named float tensors, so tests can build small
// models and deliberately broken files without any file on disk.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace multihead::testing {

struct TestTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// Header as the format describes it (F32 throughout), followed by the data in name order.
inline std::vector<uint8_t> safetensors_bytes(const std::map<std::string, TestTensor>& tensors,
                                              const std::string& extra_header = "") {
  std::string header = "{";
  size_t offset = 0;
  for (const auto& [name, t] : tensors) {
    std::string shape;
    for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(t.shape[i]);
    const size_t bytes = t.values.size() * 4;
    header += "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[" + shape + "],\"data_offsets\":[" +
              std::to_string(offset) + "," + std::to_string(offset + bytes) + "]},";
    offset += bytes;
  }
  header += extra_header.empty() ? "\"__metadata__\":{\"format\":\"pt\"}}" : extra_header + "}";
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  for (const auto& [name, t] : tensors) {
    const size_t at = out.size();
    out.resize(at + t.values.size() * 4);
    std::memcpy(out.data() + at, t.values.data(), t.values.size() * 4);
  }
  return out;
}

// Bytes with a hand-written header and raw data, for malformed files.
inline std::vector<uint8_t> raw_safetensors(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.resize(out.size() + data_bytes);
  return out;
}

}  // namespace multihead::testing
