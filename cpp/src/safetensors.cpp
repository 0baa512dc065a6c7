// SafetensorsHeader: header validation; SafetensorsFile: a whole file and dtype conversion. The
// JSON header's depth is checked on its bytes first (json_limits.h), then it is parsed with
// nlohmann::json, whose errors become our own message. Every message starts with the file's
// label, e.g. "model.safetensors: ".
#include "multihead/safetensors.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "json_limits.h"

namespace multihead {
namespace {

using nlohmann::json;

constexpr std::pair<const char*, size_t> kDtypes[] = {{"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"I16", 2}, {"U16", 2},
                                                      {"I32", 4}, {"U32", 4}, {"I64", 8}, {"U64", 8}, {"F16", 2},
                                                      {"BF16", 2}, {"F32", 4}, {"F64", 8}};

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

size_t dtype_bytes(const std::string& dtype) {
  for (const auto& [name, bytes] : kDtypes) {
    if (dtype == name) return bytes;
  }
  return 0;
}

size_t TensorInfo::size() const {
  size_t n = 1;
  for (int64_t d : shape) n *= size_t(d);
  return n;
}

SafetensorsHeader::SafetensorsHeader(const uint8_t* bytes, size_t size, std::string label) : label_(std::move(label)) {
  const auto fail = [&](const std::string& message) { throw std::invalid_argument(label_ + ": " + message); };
  if (size < 8) fail("the file is " + std::to_string(size) + " bytes, too short for the 8-byte header length");
  uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | bytes[i];
  if (header_length > size - 8) {
    fail("the header length " + std::to_string(header_length) + " is larger than the rest of the file (" +
         std::to_string(size - 8) + " bytes)");
  }
  if (header_length > kMaxSafetensorsHeaderBytes) {
    fail("the header length " + std::to_string(header_length) + " is above the limit of " +
         std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  }
  data_start_ = 8 + size_t(header_length);

  if (json_too_deep(bytes + 8, bytes + data_start_)) {
    fail("the header's JSON is nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  // nlohmann keeps the last of two equal keys; Python's safetensors, in effect, neither (the
  // entry dropped leaves its bytes undescribed, which it refuses), so a name given twice is refused.
  std::string repeated;
  std::set<std::string> names;
  const json::parser_callback_t note_names = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key && repeated.empty() && !names.insert(parsed.get<std::string>()).second) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  json header;
  try {
    header = json::parse(bytes + 8, bytes + data_start_, note_names);
  } catch (const json::exception& e) {
    fail("the header is not valid JSON (" + parse_error_text(e) + ")");
  }
  if (!repeated.empty()) fail("the header names tensor '" + shortened(repeated) + "' twice");
  if (!header.is_object()) fail("the header must be a JSON object, got " + std::string(header.type_name()));

  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string what = "tensor '" + shortened(name) + "'";
    if (!entry.is_object()) fail(what + " must be an object with dtype, shape and data_offsets");
    TensorInfo t;
    if (!entry.contains("dtype") || !entry["dtype"].is_string()) fail(what + " has no dtype string");
    t.dtype = entry["dtype"].get<std::string>();
    const size_t width = dtype_bytes(t.dtype);
    if (!width) fail(what + " has dtype " + shortened(t.dtype) + ", which is not a safetensors dtype");
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
    if (t.begin > t.end) fail(what + " has data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "] that end before they begin");
    if (t.end - t.begin != count * width) {
      fail(what + " has " + std::to_string(count) + " " + t.dtype + " values but data_offsets cover " +
           std::to_string(t.end - t.begin) + " bytes");
    }
    data_size_ = std::max(data_size_, t.end);
    tensors_.emplace(name, std::move(t));
  }
  if (data_size_ > std::numeric_limits<size_t>::max() - data_start_) fail("the data section is impossibly large");

  // The tensors must cover the data section exactly, one after another from byte 0, as Python's
  // safetensors requires: no byte described twice, none described by no tensor.
  std::vector<std::tuple<size_t, size_t, const std::string*>> spans;  // (begin, end, name), in file order
  for (const auto& [name, t] : tensors_) spans.emplace_back(t.begin, t.end, &name);
  std::sort(spans.begin(), spans.end());
  size_t covered = 0;
  const std::string* previous = nullptr;
  for (const auto& [begin, end, name] : spans) {
    if (begin < covered) fail("tensors '" + shortened(*previous) + "' and '" + shortened(*name) + "' overlap");
    if (begin > covered) {
      fail("bytes " + std::to_string(covered) + " to " + std::to_string(begin) + " of the data belong to no tensor (the next is '" +
           shortened(*name) + "'); the tensors must cover the data one after another");
    }
    covered = end;
    previous = name;
  }
}

const TensorInfo& SafetensorsHeader::info(const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::invalid_argument(label_ + ": the file has no tensor '" + shortened(name) + "'");
  return it->second;
}

namespace {

// The header of `bytes`, then a check that the data it describes is all there, and nothing more.
SafetensorsHeader checked_header(const std::vector<uint8_t>& bytes, const std::string& label) {
  SafetensorsHeader header(bytes.data(), bytes.size(), label);
  const size_t data = bytes.size() - header.data_start();
  for (const auto& [name, t] : header.tensors()) {
    if (t.end > data) {
      throw std::invalid_argument(label + ": tensor '" + shortened(name) + "' has data_offsets [" + std::to_string(t.begin) + ", " +
                                  std::to_string(t.end) + "] outside the data section (" + std::to_string(data) + " bytes)");
    }
  }
  if (data > header.data_size()) {
    throw std::invalid_argument(label + ": the file has " + std::to_string(data) + " bytes of data after its header, but its tensors cover " +
                                std::to_string(header.data_size()));
  }
  return header;
}

}  // namespace

SafetensorsFile::SafetensorsFile(std::vector<uint8_t> bytes, std::string label)
    : bytes_(std::move(bytes)), header_(checked_header(bytes_, label)) {}

std::vector<float> SafetensorsFile::read(const std::string& name) const {
  const TensorInfo& t = info(name);
  if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16") {
    throw std::invalid_argument(label() + ": tensor '" + shortened(name) + "' has dtype " + t.dtype +
                                "; only F32, F16 and BF16 can be read as float");
  }
  const size_t width = dtype_bytes(t.dtype);
  const uint8_t* p = data() + t.begin;
  std::vector<float> values(t.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = decode_value(p + width * i, width, t.dtype == "BF16");
  return values;
}

}  // namespace multihead
