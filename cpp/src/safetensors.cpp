// SafetensorsFile: header validation and dtype conversion. The JSON header's depth is checked on
// its bytes first (json_limits.h), then it is parsed with nlohmann::json, whose errors become our
// own message. Every message starts with the file's label, e.g. "model.safetensors: ".
#include "multihead/safetensors.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "json_limits.h"

namespace multihead {
namespace {

using nlohmann::json;

size_t dtype_bytes(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 0;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | (mantissa << 13);  // infinity or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 → 127
  } else if (mantissa == 0) {
    bits = sign;  // ±0
  } else {  // subnormal half: normalise into a float
    exponent = 113;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bfloat_to_float(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// A non-negative integer that fits in size_t and in TensorInfo's int64 dimensions (natively,
// size_t holds numbers that int64 does not), or throws naming the file and `what`.
size_t to_size(const json& value, const std::string& label, const std::string& what) {
  constexpr uint64_t kMax = std::min<uint64_t>(std::numeric_limits<size_t>::max(), std::numeric_limits<int64_t>::max());
  if (!value.is_number_unsigned() || value.get<uint64_t>() > kMax) {
    throw std::invalid_argument(label + ": " + what + " must be a non-negative integer that fits in memory, got " + shown(value));
  }
  return size_t(value.get<uint64_t>());
}

}  // namespace

size_t TensorInfo::size() const {
  size_t n = 1;
  for (int64_t d : shape) n *= size_t(d);
  return n;
}

SafetensorsFile::SafetensorsFile(std::vector<uint8_t> bytes, std::string label)
    : bytes_(std::move(bytes)), label_(std::move(label)) {
  const auto fail = [&](const std::string& message) { throw std::invalid_argument(label_ + ": " + message); };
  if (bytes_.size() < 8) fail("the file is " + std::to_string(bytes_.size()) + " bytes, too short for the 8-byte header length");
  uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | bytes_[i];
  if (header_length > bytes_.size() - 8) {
    fail("the header length " + std::to_string(header_length) + " is larger than the rest of the file (" +
         std::to_string(bytes_.size() - 8) + " bytes)");
  }
  if (header_length > kMaxSafetensorsHeaderBytes) {
    fail("the header length " + std::to_string(header_length) + " is above the limit of " +
         std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  }
  data_start_ = 8 + size_t(header_length);
  const size_t data_size = bytes_.size() - data_start_;

  if (json_too_deep(bytes_.data() + 8, bytes_.data() + data_start_)) {
    fail("the header's JSON is nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  json header;
  try {
    header = json::parse(bytes_.begin() + 8, bytes_.begin() + data_start_);
  } catch (const json::exception& e) {
    fail("the header is not valid JSON (" + parse_error_text(e) + ")");
  }
  if (!header.is_object()) fail("the header must be a JSON object, got " + std::string(header.type_name()));

  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string what = "tensor '" + shortened(name) + "'";
    if (!entry.is_object()) fail(what + " must be an object with dtype, shape and data_offsets");
    TensorInfo t;
    if (!entry.contains("dtype") || !entry["dtype"].is_string()) fail(what + " has no dtype string");
    t.dtype = entry["dtype"].get<std::string>();
    if (!dtype_bytes(t.dtype)) fail(what + " has dtype " + shortened(t.dtype) + "; only F32, F16 and BF16 are supported");
    if (!entry.contains("shape") || !entry["shape"].is_array()) fail(what + " has no shape array");
    size_t count = 1;
    for (const json& dim : entry["shape"]) {
      const size_t d = to_size(dim, label_, what + " shape entry");
      if (d != 0 && count > std::numeric_limits<size_t>::max() / 8 / d) fail(what + " has an impossibly large shape");
      count *= d;
      t.shape.push_back(int64_t(d));
    }
    const json& offsets = entry.contains("data_offsets") ? entry["data_offsets"] : json();
    if (!offsets.is_array() || offsets.size() != 2) fail(what + " needs data_offsets [begin, end]");
    t.begin = to_size(offsets[0], label_, what + " data_offsets begin");
    t.end = to_size(offsets[1], label_, what + " data_offsets end");
    if (t.begin > t.end || t.end > data_size) {
      fail(what + " has data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
           "] outside the data section (" + std::to_string(data_size) + " bytes)");
    }
    if (t.end - t.begin != count * dtype_bytes(t.dtype)) {
      fail(what + " has " + std::to_string(count) + " " + t.dtype + " values but data_offsets cover " +
           std::to_string(t.end - t.begin) + " bytes");
    }
    tensors_.emplace(name, std::move(t));
  }

  std::vector<std::pair<size_t, const std::string*>> starts;  // (begin, name), sorted to find overlaps
  for (const auto& [name, t] : tensors_) {
    if (t.end > t.begin) starts.emplace_back(t.begin, &name);
  }
  std::sort(starts.begin(), starts.end());
  for (size_t i = 1; i < starts.size(); ++i) {
    const TensorInfo& previous = tensors_.at(*starts[i - 1].second);
    if (starts[i].first < previous.end) {
      fail("tensors '" + shortened(*starts[i - 1].second) + "' and '" + shortened(*starts[i].second) + "' overlap");
    }
  }
}

const TensorInfo& SafetensorsFile::info(const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::invalid_argument(label_ + ": the file has no tensor '" + shortened(name) + "'");
  return it->second;
}

std::vector<float> SafetensorsFile::read(const std::string& name) const {
  const TensorInfo& t = info(name);
  const uint8_t* data = bytes_.data() + data_start_ + t.begin;
  std::vector<float> values(t.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (t.dtype == "F32") {
      std::memcpy(&values[i], data + 4 * i, 4);  // the file is little-endian, as are x86 and WASM
    } else {
      const uint16_t bits = uint16_t(data[2 * i] | (data[2 * i + 1] << 8));
      values[i] = t.dtype == "F16" ? half_to_float(bits) : bfloat_to_float(bits);
    }
  }
  return values;
}

}  // namespace multihead
