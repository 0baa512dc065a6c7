// Limits on JSON that comes from files (config.json, a safetensors header), shared by their
// readers: a nesting depth checked on the raw bytes *before* parsing, and JSON values and parse
// errors shortened for error messages.
//
// Why before parsing: nlohmann::json 3.11 parses and destroys iteratively, but dump(), copies and
// comparisons recurse once per level. In WASM, ten thousand levels overflow the stack inside
// dump() (a JS RangeError that skips C++ destructors, leaking the parsed tree), so no deep tree
// may ever be built. This header does not validate JSON: the parser does that afterwards.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace multihead {

// Real config.json files nest 3–4 levels (id2label, rope_scaling, quantization_config) and a
// safetensors header 3 (header → tensor → shape); 64 leaves room for any honest file, and is
// shallow enough that every recursive nlohmann operation is cheap on any stack.
constexpr int kMaxJsonDepth = 64;

// Whether brackets outside strings nest deeper than kMaxJsonDepth anywhere in [begin, end). For
// valid JSON this is the real nesting; for a broken file, any prefix the parser accepts is
// counted exactly too, so the parser can never build a deeper tree than this lets through.
template <class Byte>
bool json_too_deep(const Byte* begin, const Byte* end) {
  int depth = 0;
  bool in_string = false;
  for (const Byte* p = begin; p < end; ++p) {
    const char c = char(*p);
    if (in_string) {
      if (c == '\\') {
        if (p + 1 < end) ++p;  // an escaped character, e.g. \" or \\, never ends the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;  // an unmatched closer is a syntax error the parser reports
    }
  }
  return false;
}

// `text` cut to at most `limit` bytes at a UTF-8 character boundary, with "…" if cut: a value or
// name from a file may be megabytes long, and a message should stay readable.
inline std::string shortened(const std::string& text, size_t limit = 80) {
  if (text.size() <= limit) return text;
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not mid-character
  return text.substr(0, cut) + "…";
}

// A JSON value as the file wrote it, for a message: integers exactly (18446744073709551615 stays
// that, never a wrapped int64), floats in their shortest round-trip form (1e-50), strings quoted.
// Depth is already bounded by json_too_deep, so dump()'s recursion is shallow.
inline std::string shown(const nlohmann::json& value) {
  return shortened(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// The text of nlohmann's exception (a parse_error, or out_of_range for a number like 1e400)
// without its "[json.exception.parse_error.101] " tag.
inline std::string parse_error_text(const nlohmann::json::exception& e) {
  const std::string what = e.what();
  const size_t tag_end = what.find("] ");
  return tag_end == std::string::npos ? what : what.substr(tag_end + 2);
}

}  // namespace multihead
