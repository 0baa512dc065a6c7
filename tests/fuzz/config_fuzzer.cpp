// libFuzzer target: the config.json parser. Parses the input as text; a config it accepts must
// pass check_model_config again and describe a model within kMaxModelBytes. A finding is a crash,
// a sanitizer report, a leak, a hang, or an exception other than std::invalid_argument and
// multihead::LimitError (any other escapes, and libFuzzer reports the abort; a standard library
// length_error would mean a size went unchecked). It checks no message wording:
// the GoogleTest suite (tests/cpp/config_test.cpp) does.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "multihead/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const multihead::ModelConfig c = multihead::parse_model_config(std::string(data, data + size));
    multihead::check_model_config(c, "accepted config");  // throws, and so aborts, if parse let anything past
    if (multihead::model_weight_bytes(c) > double(multihead::kMaxModelBytes)) std::abort();
  } catch (const std::invalid_argument&) {
  } catch (const multihead::LimitError&) {
  }
  return 0;
}
