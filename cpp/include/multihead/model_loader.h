// ModelLoader: builds a Model from a safetensors checkpoint whose data arrives in pieces, as a
// download streams it, writing each weight straight into the model's final buffers.
//
// The constructor takes the config and the file's header alone, and does every check that does
// not need the data: each tensor's name (through the architecture's table: prefixes, legacy
// aliases, skipped buffers and tied weights), shape and dtype; missing tensors; the LM head's
// tensors all present or none; the model's float32 size against kMaxModelBytes. Then it allocates
// every final buffer, so running out of memory fails before the download starts. write() takes
// the data section in order, in chunks of any size (a value may be split between two chunks),
// converts F16 and BF16 to float on the way and checks every value is finite. Only tensors that
// must be transposed or packed pass through a staging buffer, one tensor at a time: the peak is
// the model's float32 bytes + the largest such tensor + the caller's chunk. It does not fetch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "multihead/config.h"
#include "multihead/model.h"
#include "multihead/safetensors.h"

namespace multihead {

// One WASM allocation must stay below 2 GiB: Emscripten 3.1.6's sbrk takes a signed 32-bit
// increment, so a larger request fails even in a 4 GB heap. Each embedding table is checked.
constexpr size_t kMaxBufferBytes = (size_t{1} << 31) - (size_t{1} << 16);

class ModelLoader {
 public:
  ModelLoader(const ModelConfig& config, const SafetensorsHeader& header);
  ~ModelLoader();
  ModelLoader(ModelLoader&&) noexcept;
  ModelLoader& operator=(ModelLoader&&) noexcept;

  // The next `size` bytes of the data section. Throws std::invalid_argument for a value that is
  // not finite (naming the tensor and the value's index) or for more bytes than the header
  // describes; after a throw, or after finish(), every call throws.
  void write(const uint8_t* bytes, size_t size);
  // The model, once all of the data section has been written; throws if bytes are missing.
  Model finish();

  const ModelConfig& config() const { return config_; }
  size_t data_start() const { return data_start_; }  // where the data section starts in the file
  size_t data_size() const { return data_size_; }
  size_t file_size() const { return data_start_ + data_size_; }
  size_t weight_bytes() const { return weight_bytes_; }    // the model's buffers, as stored (BF16 matrices and tables at 2 bytes a value)
  size_t staging_bytes() const { return staging_.size() * sizeof(float) + staging_halves_.size() * 2; }
  bool has_lm_head() const { return has_lm_head_; }  // the file has the LM head's tensors (GPT-2: always)

 private:
  struct Slot;
  void plan(const SafetensorsHeader& header);
  void allocate(bool head, const std::set<std::tuple<Weight, Stack, int>>& halves);
  // The set that holds weight `w` of `stack`'s layer `layer` (a model's or a stack's: layer −1).
  WeightSet& set_of(Weight w, Stack stack, int layer);
  void consume(const uint8_t* bytes, size_t size);
  void take(const uint8_t* bytes, size_t size);
  void store(const void* values, size_t count);  // `count` values of the slot's dtype
  void advance(const uint8_t*& in, size_t& count, size_t run, bool staged);
  void enter_slot();
  void complete_slot();
  [[noreturn]] void fail(const std::string& message);

  ModelConfig config_;
  std::string label_;
  size_t data_start_ = 0, data_size_ = 0, weight_bytes_ = 0;
  // Every buffer, by kind (weights.h): the whole model's, each stack's, then each stack's layers'
  // (their attention's included, moved into a MultiHeadAttention by finish()). On the heap: slots
  // point into them.
  std::unique_ptr<WeightSet> model_weights_;
  std::array<std::unique_ptr<WeightSet>, kStackCount> stack_weights_;
  std::array<std::vector<std::unique_ptr<WeightSet>>, kStackCount> layer_weights_;
  std::vector<Slot> slots_;                // in data order
  UninitializedFloats staging_;            // the largest staged tensor's values
  UninitializedHalves staging_halves_;     // the largest staged tensor kept as bfloat16
  // The stream's state: bytes consumed, the current slot, its next value and where it goes.
  size_t position_ = 0, slot_ = 0, value_ = 0, segment_ = 0, segment_left_ = 0;
  float* cursor_ = nullptr;
  uint16_t* cursor_halves_ = nullptr;  // for a table kept as bfloat16, instead of cursor_
  uint8_t carry_[4] = {};  // a value split between two writes
  size_t carry_size_ = 0;
  bool closed_ = false, has_lm_head_ = false;
};

}  // namespace multihead
