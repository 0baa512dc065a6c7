// Reading the safetensors format: an 8-byte little-endian header length N, a JSON header of N bytes
// mapping tensor names to {dtype, shape, data_offsets}, then the raw little-endian data.
//
// SafetensorsHeader reads the header alone (the first 8 + N bytes, which a browser fetches first
// with a range request), so names, shapes and dtypes can be checked before any data exists; the
// file's size is implied by it: 8 + N + the end of the last tensor's data. Everything is validated
// there: the header length, the JSON, each entry's dtype (any of the format's: BOOL U8 I8 I16 U16
// I32 U32 I64 U64 F16 BF16 F32 F64), shape and offsets (matching the shape), each name once, and
// the tensors covering the data section exactly, one after another from byte 0, as Python's
// safetensors requires. SafetensorsFile adds the data of a whole file in memory (no more than the
// tensors cover) and reads F32, F16 and
// BF16 tensors out as float. A malformed file gets std::invalid_argument naming the tensor or
// field; nothing is read out of bounds. Streaming the data into a model is ModelLoader's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <Eigen/Core>  // Eigen::half, Eigen::bfloat16

namespace multihead {

struct TensorInfo {
  std::string dtype;            // one of the format's dtypes, e.g. "F32", "I64"
  std::vector<int64_t> shape;   // may be empty (a scalar)
  size_t begin = 0, end = 0;    // byte offsets into the data section
  size_t size() const;          // number of values
};

// Bytes per value of a safetensors dtype, or 0 if `dtype` is not one.
size_t dtype_bytes(const std::string& dtype);

// One little-endian value of `width` bytes at p as float: F32 (4), or F16 or BF16 (2, `bfloat`),
// which Eigen's half and bfloat16 widen exactly (every F16 and BF16 value is a float).
inline float decode_value(const uint8_t* p, size_t width, bool bfloat) {
  if (width == 4) {
    float f;
    std::memcpy(&f, p, 4);  // the file is little-endian, as are x86 and WASM
    return f;
  }
  const uint16_t bits = uint16_t(p[0] | (p[1] << 8));
  return bfloat ? float(Eigen::numext::bit_cast<Eigen::bfloat16>(bits)) : float(Eigen::numext::bit_cast<Eigen::half>(bits));
}

class SafetensorsHeader {
 public:
  // `bytes` (size) must hold at least the first 8 + N bytes of the file; any more are ignored.
  // `label` names the file in error messages (e.g. "model.safetensors").
  SafetensorsHeader(const uint8_t* bytes, size_t size, std::string label = "model.safetensors");

  bool contains(const std::string& name) const { return tensors_.count(name) != 0; }
  // Throws std::invalid_argument if there is no such tensor.
  const TensorInfo& info(const std::string& name) const;
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  const std::string& label() const { return label_; }
  size_t data_start() const { return data_start_; }  // 8 + N
  size_t data_size() const { return data_size_; }    // the end of the last tensor's data
  size_t file_size() const { return data_start_ + data_size_; }

 private:
  std::string label_;
  size_t data_start_ = 0, data_size_ = 0;
  std::map<std::string, TensorInfo> tensors_;
};

// Largest header accepted: real checkpoints have headers of a few hundred kilobytes.
constexpr size_t kMaxSafetensorsHeaderBytes = size_t{16} << 20;

class SafetensorsFile {
 public:
  // Takes the whole file; throws if it is shorter than its header says.
  SafetensorsFile(std::vector<uint8_t> bytes, std::string label = "model.safetensors");

  const SafetensorsHeader& header() const { return header_; }
  bool contains(const std::string& name) const { return header_.contains(name); }
  const TensorInfo& info(const std::string& name) const { return header_.info(name); }
  const std::map<std::string, TensorInfo>& tensors() const { return header_.tensors(); }
  const std::string& label() const { return header_.label(); }
  // The data section: header().data_size() bytes.
  const uint8_t* data() const { return bytes_.data() + header_.data_start(); }
  // The tensor's values converted to float; throws for a dtype other than F32, F16 and BF16.
  std::vector<float> read(const std::string& name) const;

 private:
  std::vector<uint8_t> bytes_;
  SafetensorsHeader header_;
};

}  // namespace multihead
