// Test helper: reading the PyTorch fixture files (tests/fixtures/…): whole files, raw
// little-endian arrays checked against their expected length, a case.txt's integer fields, the
// sorted subfolders of a folder (one per case or checkpoint), and a checkpoint folder's model,
// read whole or streamed.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "multihead/config.h"
#include "multihead/model.h"
#include "multihead/model_loader.h"
#include "multihead/safetensors.h"

namespace multihead::testing {

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class T>
std::vector<T> read_values(const std::string& path, size_t count) {
  const std::vector<uint8_t> bytes = read_file(path);
  if (bytes.size() != count * sizeof(T)) throw std::runtime_error(path + " does not hold " + std::to_string(count) + " values");
  std::vector<T> values(count);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// case.txt's integer lines (n_tokens, n_layers, …); the text lines (text, source_text, …) and tensor lines are skipped.
inline std::map<std::string, int> case_fields(const std::string& path) {
  std::map<std::string, int> v;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key != "text" && !key.ends_with("_text") && key != "tensor") fields >> v[key];
  }
  return v;
}

// The names of the folders in `dir`, sorted; none if `dir` does not exist.
inline std::vector<std::string> subfolders(const std::string& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(dir)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The config.json of a checkpoint folder.
inline ModelConfig read_config(const std::string& folder) {
  const std::vector<uint8_t> json = read_file(folder + "/config.json");
  return parse_model_config(std::string(json.begin(), json.end()));
}

// The model a checkpoint folder holds: its config.json and model.safetensors, read whole.
inline Model load_model(const std::string& folder) {
  return Model(read_config(folder), SafetensorsFile(read_file(folder + "/model.safetensors")));
}

// The same model through ModelLoader, its header first, then its data in 4 KiB chunks, as a
// download streams it.
inline Model load_streaming(const std::string& folder) {
  const std::vector<uint8_t> bytes = read_file(folder + "/model.safetensors");
  const size_t start = SafetensorsHeader(bytes.data(), bytes.size()).data_start();
  ModelLoader loader(read_config(folder), SafetensorsHeader(bytes.data(), start));
  for (size_t at = start; at < bytes.size(); at += 4096) loader.write(bytes.data() + at, std::min<size_t>(4096, bytes.size() - at));
  return loader.finish();
}

// A test name from a fixture path: "gpt2-new/repeated" → "gpt2_new_repeated".
inline std::string test_name(std::string name) {
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

}  // namespace multihead::testing
