// How the fuzzers read their inputs, shared by the targets (which split inputs) and make_seeds.cpp
// (which writes seeds in the same forms).
//
// A safetensors file begins with an 8-byte header length. Almost every mutation that inserts into
// or deletes from the header leaves that length wrong, so the file is refused before its JSON is
// read, and fuzzing from real files barely gets past the first check. The *framed* form fixes that:
// header JSON, a NUL byte, then the data; the harness writes the length. JSON text cannot hold a
// raw NUL (strings escape it as \u0000), so the first NUL always ends the header. The raw form is
// still fuzzed too (safetensors_fuzzer.cpp), so the length checks are not skipped.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace multihead::fuzz {

// A safetensors file with the given header text and data: the 8-byte little-endian length first.
inline std::vector<uint8_t> safetensors_file(const uint8_t* header, size_t header_size, const uint8_t* data, size_t data_size) {
  std::vector<uint8_t> file(8);
  for (int i = 0; i < 8; ++i) file[i] = uint8_t(uint64_t(header_size) >> (8 * i));
  file.insert(file.end(), header, header + header_size);
  file.insert(file.end(), data, data + data_size);
  return file;
}

// The framed form "header \0 data" as a safetensors file; a missing NUL means no data.
inline std::vector<uint8_t> unframe_safetensors(const uint8_t* begin, const uint8_t* end) {
  const uint8_t* nul = std::find(begin, end, uint8_t(0));
  return safetensors_file(begin, size_t(nul - begin), nul == end ? end : nul + 1, size_t(end - (nul == end ? end : nul + 1)));
}

// The whole-model target's input: config.json, NUL, then model.safetensors in the framed form.
struct ModelInput {
  std::string config;
  std::vector<uint8_t> weights;
};

inline ModelInput split_model_input(const uint8_t* data, size_t size) {
  const uint8_t* end = data + size;
  const uint8_t* nul = std::find(data, end, uint8_t(0));
  return {std::string(data, nul), nul == end ? std::vector<uint8_t>{} : unframe_safetensors(nul + 1, end)};
}

// The framed form of a safetensors file (for seeds): its header, NUL, its data.
inline std::vector<uint8_t> frame_safetensors(const std::vector<uint8_t>& file) {
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | file[size_t(i)];
  std::vector<uint8_t> framed(file.begin() + 8, file.begin() + 8 + std::ptrdiff_t(length));
  framed.push_back(0);
  framed.insert(framed.end(), file.begin() + 8 + std::ptrdiff_t(length), file.end());
  return framed;
}

inline std::vector<uint8_t> join_model_input(const std::string& config, const std::vector<uint8_t>& file) {
  std::vector<uint8_t> out(config.begin(), config.end());
  out.push_back(0);
  const std::vector<uint8_t> framed = frame_safetensors(file);
  out.insert(out.end(), framed.begin(), framed.end());
  return out;
}

}  // namespace multihead::fuzz
