// Reading the safetensors format: an 8-byte little-endian header length, a JSON header mapping
// tensor names to {dtype, shape, data_offsets}, then the raw little-endian data.
//
// Everything is validated when the file is opened, before any tensor is read: the header length,
// the JSON, each entry's dtype, shape and offsets (inside the data, matching the shape, not
// overlapping another tensor). A malformed file gets std::invalid_argument naming the tensor or
// field; nothing is read out of bounds. F32, F16 and BF16 are supported and read out as float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace multihead {

struct TensorInfo {
  std::string dtype;            // "F32", "F16" or "BF16"
  std::vector<int64_t> shape;   // may be empty (a scalar)
  size_t begin = 0, end = 0;    // byte offsets into the data section
  size_t size() const;          // number of values
};

class SafetensorsFile {
 public:
  // Takes the whole file. `label` names it in error messages (e.g. "model.safetensors").
  SafetensorsFile(std::vector<uint8_t> bytes, std::string label = "model.safetensors");

  bool contains(const std::string& name) const { return tensors_.count(name) != 0; }
  // Throws std::invalid_argument if there is no such tensor.
  const TensorInfo& info(const std::string& name) const;
  // The tensor's values converted to float.
  std::vector<float> read(const std::string& name) const;
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  const std::string& label() const { return label_; }

 private:
  std::vector<uint8_t> bytes_;
  std::string label_;
  size_t data_start_ = 0;
  std::map<std::string, TensorInfo> tensors_;
};

// Largest header accepted: real checkpoints have headers of a few hundred kilobytes.
constexpr size_t kMaxSafetensorsHeaderBytes = size_t{16} << 20;

}  // namespace multihead
