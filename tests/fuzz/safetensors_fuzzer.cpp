// libFuzzer target: the safetensors reader. Opens the input as a file (and, if it starts with
// '{', also in the framed form "header \0 data" of fuzz_inputs.h, so that mutations of the JSON
// are not all lost to a stale header length), checks what TensorInfo promises of every tensor it
// accepted (a known dtype, non-negative dimensions, offsets inside the data that cover exactly its
// values), that the header parsed alone from the first data_start() bytes agrees, then reads each
// float tensor and checks it holds as many values as its shape says. A finding is a crash, a
// sanitizer report, a leak, a hang, a broken promise (abort),
// or any exception other than the one the reader documents (std::invalid_argument): any other
// escapes, and libFuzzer reports the abort. It checks no values: any bytes are valid data.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "fuzz_inputs.h"
#include "multihead/safetensors.h"

namespace {

void open_and_read(std::vector<uint8_t> bytes) {
  const size_t size = bytes.size();
  try {
    const multihead::SafetensorsFile file(std::move(bytes));
    const multihead::SafetensorsHeader& header = file.header();
    if (header.file_size() > size) std::abort();
    const multihead::SafetensorsHeader alone(file.data() - header.data_start(), header.data_start());
    if (alone.tensors().size() != header.tensors().size() || alone.file_size() != header.file_size()) std::abort();
    for (const auto& [name, info] : file.tensors()) {
      const size_t width = multihead::dtype_bytes(info.dtype);
      if (width == 0 || info.begin > info.end || info.end > header.data_size()) std::abort();
      for (const int64_t d : info.shape) {
        if (d < 0) std::abort();
      }
      if (info.end - info.begin != info.size() * width) std::abort();
      const bool floats = info.dtype == "F32" || info.dtype == "F16" || info.dtype == "BF16";
      if (floats && file.read(name).size() != info.size()) std::abort();
    }
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  open_and_read(std::vector<uint8_t>(data, data + size));
  if (size > 0 && data[0] == '{') open_and_read(multihead::fuzz::unframe_safetensors(data, data + size));
  return 0;
}
