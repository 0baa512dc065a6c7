// ModelLoader: matching a checkpoint's tensor names to the architecture's table, allocating the
// model's buffers from the weight table (weights.h), and streaming the data section into them.
// The tables themselves are architectures/'s and weights.cpp's; the forward pass is model.cpp's.
#include "multihead/model_loader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <stdexcept>

#include "json_limits.h"
#include "multihead/parallel.h"
#include "multihead/positions.h"

namespace multihead {
namespace {

// Where a direct tensor's values go, in order: floats, or a BF16 table's halves.
struct Segment {
  float* data;
  size_t count;
  uint16_t* halves = nullptr;  // instead of data, for a table kept as bfloat16
};

// B (k, n) with B(p, j) = staging[offset + p·row_stride + j·col_stride], packed into out.
struct Pack {
  Buffer* out;
  size_t offset, row_stride, col_stride;
};

}  // namespace

// Where one tensor of the file goes. Direct tensors are written value by value into `segments`,
// in order; staged ones are gathered in the staging buffer and then packed into `packs`.
struct ModelLoader::Slot {
  std::string name;
  size_t begin = 0, end = 0, width = 0;
  bool bfloat = false, skip = false;
  bool plus_one = false;  // a Gemma norm's weight: 1 is added once it is in (Norm::rms_norm_one_plus)
  bool keep_bf16 = false; // a BF16 matrix or table kept as it is: its 16 bits are copied, not widened
  size_t heads = 0, head_dim = 0;  // Layout::interleaved_qkv: its rows are put in q | k | v order before packing
  std::vector<Segment> segments;
  std::vector<Pack> packs;
  size_t values() const { return width ? (end - begin) / width : 0; }
};

namespace {

// A table rule matched to a file tensor: which rule, and its layer (-1 for a model's or a stack's
// weight); the stack is the rule's.
struct Match {
  const TensorRule* rule;
  int layer;
};

// Whether `name` is `pattern` with "{}" standing for a layer number (decimal, no leading zeros).
bool matches(const std::string& pattern, const std::string& name, int& layer) {
  const size_t hole = pattern.find("{}");
  if (hole == std::string::npos) {
    layer = -1;
    return pattern == name;
  }
  const std::string before = pattern.substr(0, hole), after = pattern.substr(hole + 2);
  if (name.size() <= before.size() + after.size() || name.compare(0, before.size(), before) != 0 ||
      name.compare(name.size() - after.size(), after.size(), after) != 0) {
    return false;
  }
  const std::string digits = name.substr(before.size(), name.size() - before.size() - after.size());
  if (digits.size() > 4 || (digits.size() > 1 && digits[0] == '0') ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  layer = std::stoi(digits);
  return true;
}

std::string with_aliases(const ArchitectureSpec& spec, std::string name) {
  for (const auto& [legacy, current] : spec.aliases) {
    if (name.size() >= legacy.size() && name.compare(name.size() - legacy.size(), legacy.size(), legacy) == 0) {
      return name.substr(0, name.size() - legacy.size()) + current;
    }
  }
  return name;
}

// The forms of `name` to look up, each with the prefix it drops: as written, then without each
// accepted prefix; legacy aliases applied.
std::vector<std::pair<std::string, std::string>> candidate_names(const ArchitectureSpec& spec, const std::string& name) {
  std::vector<std::pair<std::string, std::string>> names{{"", with_aliases(spec, name)}};
  for (const std::string& prefix : spec.prefixes) {
    if (name.compare(0, prefix.size(), prefix) == 0) names.emplace_back(prefix, with_aliases(spec, name.substr(prefix.size())));
  }
  return names;
}

// The rule of `part` that `name` matches, with its layer, among those that apply to the config.
std::optional<Match> find_rule(const ModelConfig& config, Part part, const std::string& name) {
  for (const TensorRule& rule : config.architecture->tensors) {
    int layer = -1;
    if (rule.part == part && applies(config, rule) && matches(rule.name, name, layer) && layer < config.layers(rule.stack)) {
      return Match{&rule, layer};
    }
  }
  return std::nullopt;
}

bool is_skipped(const ModelConfig& config, const std::string& name) {
  const int layers = std::max(config.num_hidden_layers, config.num_decoder_layers);
  for (const std::string& pattern : config.architecture->skipped) {
    int layer = -1;
    if (matches(pattern, name, layer) && layer < layers) return true;
  }
  return false;
}

// The file shape of a rule's tensor: its weight's shape (weights.h) as the layout stores it.
std::vector<int64_t> expected_shape(const ModelConfig& c, const TensorRule& r) {
  const WeightKind& k = weight_kind(r.weight);
  const int64_t rows = int64_t(dim_size(c, k.rows)), cols = int64_t(dim_size(c, k.cols));
  const int64_t fused = int64_t(dim_size(c, Dim::q_width) + 2 * dim_size(c, Dim::kv_width));
  switch (r.layout) {
    case Layout::linear: return {cols, rows};
    case Layout::conv1d: return {rows, cols};
    case Layout::fused_qkv: return {rows, fused};
    case Layout::fused_bias:
    case Layout::interleaved_bias: return {fused};
    case Layout::interleaved_qkv: return {fused, rows};
    case Layout::vector: return {cols};
    case Layout::row: return {1, cols};
    case Layout::embedding: return {rows, cols};
  }
  return {};
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// A rule's full name in this file, for a missing-tensor message: the file's prefix, layer filled in.
std::string full_name(const TensorRule& r, int layer, const std::string& prefix) {
  std::string name = r.name;
  const size_t hole = name.find("{}");
  if (hole != std::string::npos) name.replace(hole, 2, std::to_string(layer));
  return (r.part == Part::body ? prefix : "") + name;
}

// Where a tensor's values go, by its layout (its shape was checked against the rule): `set` is
// the model's weights or its layer's, already allocated.
void route(const ModelConfig& config, WeightSet& set, const TensorRule& r, std::vector<Segment>& segments, std::vector<Pack>& packs) {
  switch (r.layout) {
    case Layout::linear: {  // file (out, in): B(p, j) = W[j][p]
      Buffer& b = set[r.weight];
      packs.push_back({&b, 0, 1, b.rows});
      break;
    }
    case Layout::conv1d: {  // file (in, out): B itself
      Buffer& b = set[r.weight];
      packs.push_back({&b, 0, b.cols, 1});
      break;
    }
    case Layout::fused_qkv: {  // file (in, q + 2·kv): column blocks Q | K | V
      Buffer &q = set[Weight::wq], &k = set[Weight::wk], &v = set[Weight::wv];
      const size_t width = q.cols + k.cols + v.cols;
      packs = {{&q, 0, width, 1}, {&k, q.cols, width, 1}, {&v, q.cols + k.cols, width, 1}};
      break;
    }
    case Layout::fused_bias:
      segments = {{set[Weight::bq].data.data(), set[Weight::bq].cols},
                  {set[Weight::bk].data.data(), set[Weight::bk].cols},
                  {set[Weight::bv].data.data(), set[Weight::bv].cols}};
      break;
    case Layout::interleaved_qkv: {  // rows q | k | v once complete_slot has reordered them: B(p, j) = W[j][p]
      Buffer &q = set[Weight::wq], &k = set[Weight::wk], &v = set[Weight::wv];
      packs = {{&q, 0, 1, q.rows}, {&k, q.cols * q.rows, 1, k.rows}, {&v, (q.cols + k.cols) * q.rows, 1, v.rows}};
      break;
    }
    case Layout::interleaved_bias: {  // per head: its dh values of b_q, of b_k, of b_v
      const size_t dh = size_t(dim_size(config, Dim::head)), heads = set[Weight::bq].cols / dh;
      for (size_t h = 0; h < heads; ++h) {
        for (Weight w : {Weight::bq, Weight::bk, Weight::bv}) segments.push_back({set[w].data.data() + h * dh, dh});
      }
      break;
    }
    case Layout::vector:
    case Layout::row:
    case Layout::embedding: {
      Buffer& b = set[r.weight];
      segments = {{b.data.data(), b.rows * b.cols, b.halves.data()}};
      break;
    }
  }
}

// Whether weight `w` keeps a BF16 file's values as they are (Buffer::halves): the matrices GEMM
// reads and the embedding tables, which are nearly all of a model's bytes. Vectors (biases, norms)
// are widened, as the kernels read them as floats.
bool keeps_bf16(Weight w) {
  return weight_kind(w).storage == Storage::packed || w == Weight::word_embeddings || w == Weight::lm_head;
}

// The (weight, stack, layer) buffers a file keeps as bfloat16: those a BF16 tensor fills (layer
// -1 for a model's or a stack's weight, stack encoder for a model's).
using HalfBuffers = std::set<std::tuple<Weight, Stack, int>>;

// The buffer key of weight `w` filled by rule `r` at `layer`.
std::tuple<Weight, Stack, int> buffer_key(Weight w, const TensorRule& r, int layer) {
  return {w, weight_kind(w).scope == Scope::model ? Stack::encoder : r.stack, layer};
}

// Bytes of every buffer of `weights`, as stored: 2 per value of a bfloat16 one, 4 of the others.
double stored_bytes(const ModelConfig& c, const std::vector<PlacedWeight>& weights, const HalfBuffers& halves) {
  double bytes = 0;
  for (const PlacedWeight& w : weights) {
    const WeightKind& k = weight_kind(w.weight);
    const double values = double(Buffer::floats(dim_size(c, k.rows), dim_size(c, k.cols), k.storage));
    const bool per_layer = k.scope == Scope::layer;
    for (int l = per_layer ? 0 : -1; l < (per_layer ? c.layers(w.stack) : 0); ++l) {
      bytes += values * (halves.count({w.weight, w.stack, l}) ? 2 : 4);
    }
  }
  return bytes;
}

// The model's buffers against kMaxModelBytes, and each embedding table against one allocation's
// limit, before allocating any of them.
void check_bytes(const ModelConfig& c, bool head, const HalfBuffers& halves, const std::string& label) {
  const double bytes = stored_bytes(c, model_weights(c, head), halves);
  if (bytes > double(kMaxModelBytes)) {
    throw LimitError(label + ": the model's weights take " + gib_text(bytes) + " as stored (float32, or bfloat16 for a BF16 file's), " +
                     "above the limit of " + gib_text(double(kMaxModelBytes)));
  }
  const double table = (halves.count({Weight::word_embeddings, Stack::encoder, -1}) ? 2.0 : 4.0) * double(c.vocab_size) * double(c.hidden_size);
  if (table > double(kMaxBufferBytes)) {
    throw LimitError(label + ": the word embeddings (vocab_size " + std::to_string(c.vocab_size) + " × hidden_size " +
                     std::to_string(c.hidden_size) + ") take " + gib_text(table) +
                     ", above the largest single WASM allocation (2 GiB)");
  }
}

// A file tensor matched to the table.
struct Assigned {
  const std::string* name;
  const TensorInfo* info;
  Match match;
};

// √hidden as transformers' Gemma multiplies the embeddings by it: the float32 square root, rounded
// to the dtype the embeddings are stored in (BF16: √640 = 25.298 becomes 25.25).
float embedding_scale(size_t hidden, const std::string& dtype) {
  const float scale = float(std::sqrt(double(hidden)));
  if (dtype == "BF16") return float(Eigen::bfloat16(scale));
  if (dtype == "F16") return float(Eigen::half(scale));
  return scale;
}

// Puts a GPT-NeoX query_key_value's row blocks, head by head (q, k, v of head 0, then of head 1, …)
// with `block` values each, in Q | K | V order, in place.
template <class T>
void deinterleave(T* values, size_t heads, size_t block) {
  const std::vector<T> file(values, values + 3 * heads * block);
  for (size_t h = 0; h < heads; ++h) {
    for (size_t t = 0; t < 3; ++t) std::memcpy(values + (t * heads + h) * block, file.data() + (h * 3 + t) * block, block * sizeof(T));
  }
}

// Whether `name` means the same as a tensor the file also has that comes before it among its
// duplicates (the primary, then its alternates in the table's order): that one is read. Names in
// the table are written after the prefix, and the other is looked for with the same prefix or none.
bool is_redundant_duplicate(const ArchitectureSpec& spec, const SafetensorsHeader& header, const std::string& name) {
  for (const auto& [prefix, candidate] : candidate_names(spec, name)) {
    const auto present = [&, &prefix = prefix](const std::string& n) { return header.contains(prefix + n) || header.contains(n); };
    for (size_t i = 0; i < spec.duplicates.size(); ++i) {
      const auto& [alternate, primary] = spec.duplicates[i];
      if (candidate != alternate) continue;
      if (present(primary)) return true;
      for (size_t j = 0; j < i; ++j) {
        if (spec.duplicates[j].second == primary && present(spec.duplicates[j].first)) return true;
      }
    }
  }
  return false;
}

std::string canonical_duplicate(const ArchitectureSpec& spec, const std::string& name) {
  for (const auto& [alternate, primary] : spec.duplicates) {
    if (name == alternate) return primary;
  }
  return name;
}

// Whether `r` is an untied head's decoder in a model whose config ties it: the word embeddings
// serve instead, and a copy in the file (some files of tied models keep one) is not read.
bool tied_away(const ModelConfig& config, const TensorRule& r) {
  return r.weight == Weight::lm_head && config.lm_head() == LmHead::tied;
}

// What the table says of one file tensor: skipped, or the rule it fills (with the prefix it used).
struct Classified {
  bool skip = false;
  std::optional<Match> match;
  std::string prefix;
};

Classified classify(const ModelConfig& config, const SafetensorsHeader& header, const std::string& name) {
  const ArchitectureSpec& spec = *config.architecture;
  Classified c;
  if (is_redundant_duplicate(spec, header, name)) {
    c.skip = true;
    return c;
  }
  for (const auto& [prefix, candidate] : candidate_names(spec, name)) {
    if (is_skipped(config, candidate)) {
      c.skip = true;
      return c;
    }
    if ((c.match = find_rule(config, Part::body, canonical_duplicate(spec, candidate)))) {
      c.prefix = prefix;
      return c;
    }
    if ((c.match = find_rule(config, Part::head, canonical_duplicate(spec, candidate)))) {
      c.skip = tied_away(config, *c.match->rule);
      return c;
    }
  }
  return c;
}

}  // namespace

ModelLoader::ModelLoader(const ModelConfig& config, const SafetensorsHeader& header)
    : config_(config), label_(header.label()), data_start_(header.data_start()), data_size_(header.data_size()) {
  check_model_config(config_);
  plan(header);
  enter_slot();
}

ModelLoader::~ModelLoader() = default;
ModelLoader::ModelLoader(ModelLoader&&) noexcept = default;
ModelLoader& ModelLoader::operator=(ModelLoader&&) noexcept = default;

void ModelLoader::fail(const std::string& message) {
  closed_ = true;
  throw std::invalid_argument(label_ + ": " + message);
}

// Every buffer of the weight table that the architecture has (with `head`, the LM head's too),
// allocated now, so an out-of-memory error comes before any data. The big ones are left
// uninitialized: every value is written before finish() hands out the model.
void ModelLoader::allocate(bool head, const HalfBuffers& halves) {
  model_weights_ = std::make_unique<WeightSet>();
  for (int s = 0; s < config_.stack_count(); ++s) {
    stack_weights_[size_t(s)] = std::make_unique<WeightSet>();
    for (int l = 0; l < config_.layers(Stack(s)); ++l) layer_weights_[size_t(s)].push_back(std::make_unique<WeightSet>());
  }
  for (const PlacedWeight& w : model_weights(config_, head)) {
    const WeightKind& k = weight_kind(w.weight);
    const size_t rows = dim_size(config_, k.rows), cols = dim_size(config_, k.cols);
    const bool per_layer = k.scope == Scope::layer;
    for (int l = per_layer ? 0 : -1; l < (per_layer ? config_.layers(w.stack) : 0); ++l) {
      Buffer& b = set_of(w.weight, w.stack, l)[w.weight];
      b.rows = rows;
      b.cols = cols;
      b.storage = k.storage;
      if (halves.count({w.weight, w.stack, l})) {
        b.halves.resize(Buffer::floats(rows, cols, k.storage));
      } else {
        b.data.resize(Buffer::floats(rows, cols, k.storage));
      }
    }
  }
  if (config_.architecture->positions == Positions::sinusoidal) {  // no tensor fills these: computed now
    for (int s = 0; s < std::min(config_.stack_count(), 2); ++s) {
      Buffer& b = (*stack_weights_[size_t(s)])[Weight::position_embeddings];
      sinusoidal_positions(int(b.rows), int(b.cols), b.data.data());
    }
  }
}

WeightSet& ModelLoader::set_of(Weight w, Stack stack, int layer) {
  switch (weight_kind(w).scope) {
    case Scope::model: return *model_weights_;
    case Scope::stack: return *stack_weights_[size_t(stack)];
    case Scope::layer: return *layer_weights_[size_t(stack)][size_t(layer)];
  }
  throw std::logic_error("a weight of no scope");
}

void ModelLoader::plan(const SafetensorsHeader& header) {
  const ArchitectureSpec& spec = *config_.architecture;
  std::vector<Assigned> assigned;
  std::map<std::pair<const TensorRule*, int>, const std::string*> seen;
  std::string prefix;  // the body's prefix as this file writes it, for missing-tensor messages
  size_t head_tensors = 0;
  for (const auto& [name, info] : header.tensors()) {
    const Classified c = classify(config_, header, name);
    if (c.skip) {
      Slot slot;
      slot.name = name;
      slot.begin = info.begin;
      slot.end = info.end;
      slot.skip = true;
      slots_.push_back(std::move(slot));
      continue;
    }
    if (!c.match) {
      const std::string layers = std::to_string(config_.num_hidden_layers) +
                                 (spec.encoder_decoder() ? " + " + std::to_string(config_.num_decoder_layers) : "");
      fail("tensor '" + shortened(name) + "' is not a weight of a " + layers + "-layer " + spec.model_type + " model");
    }
    const auto [it, fresh] = seen.emplace(std::make_pair(c.match->rule, c.match->layer), &name);
    if (!fresh) fail("tensors '" + shortened(*it->second) + "' and '" + shortened(name) + "' are the same weight");
    if (info.dtype != "F32" && info.dtype != "F16" && info.dtype != "BF16") {
      fail("tensor '" + shortened(name) + "' has dtype " + info.dtype + "; weights must be F32, F16 or BF16");
    }
    const std::vector<int64_t> want = expected_shape(config_, *c.match->rule);
    if (info.shape != want) {
      fail("tensor '" + shortened(name) + "' has shape " + shape_text(info.shape) + ", expected " + shape_text(want) +
           " from config.json");
    }
    const bool in_head = c.match->rule->part == Part::head;
    if (!in_head && !c.prefix.empty()) prefix = c.prefix;
    head_tensors += in_head;
    assigned.push_back({&name, &info, *c.match});
  }
  // The body's tensors must all be there, but the optional ones; the head's all or none.
  const bool head = config_.lm_head() == LmHead::tied || head_tensors > 0;  // a tied head is the word embeddings: always there
  for (const TensorRule& r : spec.tensors) {
    if (r.optional || (r.part == Part::head && !head) || tied_away(config_, r) || !applies(config_, r)) continue;
    const bool per_layer = r.name.find("{}") != std::string::npos;
    for (int l = per_layer ? 0 : -1; l < (per_layer ? config_.layers(r.stack) : 0); ++l) {
      if (seen.count({&r, l})) continue;
      fail("the file has no tensor '" + shortened(full_name(r, l, prefix)) + "'" +
           (r.part == Part::head ? " (it has other tensors of the language-model head)" : ""));
    }
  }
  has_lm_head_ = head;
  HalfBuffers halves;
  for (const Assigned& a : assigned) {
    if (a.info->dtype != "BF16") continue;
    for (Weight w : filled_weights(*a.match.rule)) {
      if (keeps_bf16(w)) halves.insert(buffer_key(w, *a.match.rule, a.match.layer));
    }
  }
  check_bytes(config_, head, halves, label_);
  allocate(head, halves);
  weight_bytes_ = size_t(stored_bytes(config_, model_weights(config_, head), halves));
  // An optional tensor the file lacks leaves its buffer zero.
  for (const TensorRule& r : spec.tensors) {
    if (!r.optional || !applies(config_, r) || (r.part == Part::head && !head)) continue;
    const bool per_layer = r.name.find("{}") != std::string::npos;
    for (int l = per_layer ? 0 : -1; l < (per_layer ? config_.layers(r.stack) : 0); ++l) {
      if (seen.count({&r, l})) continue;
      for (Weight w : filled_weights(r)) {
        Buffer& b = set_of(w, r.stack, l)[w];
        std::fill(b.data.begin(), b.data.end(), 0.0f);
      }
    }
  }
  size_t staging = 0, staging_halves = 0;
  for (const Assigned& a : assigned) {
    Slot slot;
    slot.name = *a.name;
    slot.begin = a.info->begin;
    slot.end = a.info->end;
    slot.width = dtype_bytes(a.info->dtype);
    slot.bfloat = a.info->dtype == "BF16";
    slot.keep_bf16 = halves.count(buffer_key(filled_weights(*a.match.rule)[0], *a.match.rule, a.match.layer)) > 0;
    slot.plus_one = spec.norm == Norm::rms_norm_one_plus && is_norm_weight(a.match.rule->weight);
    if (a.match.rule->weight == Weight::word_embeddings && spec.embedding_scale == EmbeddingScale::sqrt_hidden) {
      config_.embedding_scale = embedding_scale(size_t(config_.hidden_size), a.info->dtype);
    }
    route(config_, set_of(a.match.rule->weight, a.match.rule->stack, a.match.layer), *a.match.rule, slot.segments, slot.packs);
    if (a.match.rule->layout == Layout::interleaved_qkv) {
      slot.heads = size_t(config_.num_attention_heads);
      slot.head_dim = size_t(config_.head_dim);
    }
    if (!slot.packs.empty()) (slot.keep_bf16 ? staging_halves : staging) = std::max(slot.keep_bf16 ? staging_halves : staging, slot.values());
    slots_.push_back(std::move(slot));
  }
  staging_.resize(staging);
  staging_halves_.resize(staging_halves);
  std::sort(slots_.begin(), slots_.end(), [](const Slot& a, const Slot& b) { return std::make_pair(a.begin, a.end) < std::make_pair(b.begin, b.end); });
}

// Moves past empty tensors at position_ (only skipped buffers can be empty: config sizes are ≥ 1)
// and readies the next slot's first value.
void ModelLoader::enter_slot() {
  while (slot_ < slots_.size() && slots_[slot_].end <= position_ && slots_[slot_].begin <= position_) {
    ++slot_;
  }
  value_ = 0;
  carry_size_ = 0;
  segment_ = 0;
  if (slot_ < slots_.size() && !slots_[slot_].segments.empty()) {
    cursor_ = slots_[slot_].segments[0].data;
    cursor_halves_ = slots_[slot_].segments[0].halves;
    segment_left_ = slots_[slot_].segments[0].count;
  }
}

void ModelLoader::write(const uint8_t* bytes, size_t size) {
  if (closed_) throw std::invalid_argument(label_ + ": this loader has failed or finished; start a new one");
  if (size > data_size_ - position_) {
    fail("the data section is " + std::to_string(data_size_) + " bytes, but " + std::to_string(position_ + size) +
         " were written");
  }
  consume(bytes, size);
}

// The header's tensors cover the data one after another (safetensors.cpp refuses gaps), so every
// byte belongs to the slot at position_.
void ModelLoader::consume(const uint8_t* bytes, size_t size) {
  while (size > 0 && slot_ < slots_.size()) {
    const Slot& s = slots_[slot_];
    const size_t n = std::min(size, s.end - position_);
    if (!s.skip) take(bytes, n);
    bytes += n;
    size -= n;
    position_ += n;
    if (position_ == s.end) {
      if (!s.skip) complete_slot();
      ++slot_;
      enter_slot();
    }
  }
}

// Decodes the whole values in the carried bytes and `bytes`; keeps a split value's start.
void ModelLoader::take(const uint8_t* bytes, size_t size) {
  const Slot& s = slots_[slot_];
  size_t i = 0;
  if (carry_size_) {
    while (carry_size_ < s.width && i < size) carry_[carry_size_++] = bytes[i++];
    if (carry_size_ < s.width) return;
    store(carry_, 1);
    carry_size_ = 0;
  }
  const size_t whole = (size - i) / s.width;
  store(bytes + i, whole);
  i += whole * s.width;
  while (i < size) carry_[carry_size_++] = bytes[i++];
}

// The fewest values worth a thread of their own when decoding.
constexpr size_t kValuesPerThread = size_t{1} << 16;

// Decodes `count` whole values of the current slot into where they go, in runs as long as the
// destination allows (the staging buffer, or one segment of a final buffer), then checks each
// run: a value-by-value path spent most of a load's time in per-value bookkeeping.
void ModelLoader::store(const void* values, size_t count) {
  const Slot& s = slots_[slot_];
  const uint8_t* in = static_cast<const uint8_t*>(values);
  while (count > 0) {
    const bool staged = !s.packs.empty();
    const size_t run = staged ? count : std::min(count, segment_left_);
    if (s.keep_bf16) {  // the bits as they are; a bfloat16 is not finite when its exponent is all ones
      uint16_t* out = staged ? staging_halves_.data() + value_ : cursor_halves_;
      std::memcpy(out, in, run * 2);
      for (size_t j = 0; j < run; ++j) {
        if ((out[j] & 0x7F80) == 0x7F80) fail("tensor '" + shortened(s.name) + "' value " + std::to_string(value_ + j) + " is not finite");
      }
      advance(in, count, run, staged);
      continue;
    }
    float* out = staged ? staging_.data() + value_ : cursor_;
    // Spread over the threads: the first write to fresh WASM memory faults its pages in, which
    // costs more than the copy itself (about 3 ms per MB on the 2-core test machine).
    parallel_ranges(run, kValuesPerThread, [&](size_t begin, size_t end) {
      if (s.width == 4) {
        std::memcpy(out + begin, in + 4 * begin, (end - begin) * 4);  // the file is little-endian, as are x86 and WASM
      } else {
        for (size_t j = begin; j < end; ++j) out[j] = decode_value(in + 2 * j, 2, s.bfloat);
      }
    });
    if (!std::isfinite(largest_magnitude(out, run))) {
      size_t bad = 0;
      while (std::isfinite(out[bad])) ++bad;
      fail("tensor '" + shortened(s.name) + "' value " + std::to_string(value_ + bad) + " is not finite");
    }
    advance(in, count, run, staged);
  }
}

// Moves past `run` values just stored: in the file, and in the staging buffer or the segments.
void ModelLoader::advance(const uint8_t*& in, size_t& count, size_t run, bool staged) {
  const Slot& s = slots_[slot_];
  in += run * s.width;
  count -= run;
  value_ += run;
  if (staged) return;
  if (cursor_) cursor_ += run;
  if (cursor_halves_) cursor_halves_ += run;
  segment_left_ -= run;
  if (segment_left_ == 0 && ++segment_ < s.segments.size()) {
    cursor_ = s.segments[segment_].data;
    cursor_halves_ = s.segments[segment_].halves;
    segment_left_ = s.segments[segment_].count;
  }
}

// A tensor is whole: a staged one is packed into its matrices (transposing Linear weights on the
// way), a Gemma norm's weight becomes 1 + w.
void ModelLoader::complete_slot() {
  const Slot& s = slots_[slot_];
  if (s.heads) {  // GPT-NeoX: rows head by head (q, k, v of head 0, then of head 1, …) into Q | K | V
    const size_t rows = s.head_dim * size_t(config_.hidden_size);  // one head's q, k or v
    if (s.keep_bf16) {
      deinterleave(staging_halves_.data(), s.heads, rows);
    } else {
      deinterleave(staging_.data(), s.heads, rows);
    }
  }
  if (slots_[slot_].plus_one) {
    for (const Segment& segment : slots_[slot_].segments) {
      for (size_t i = 0; i < segment.count; ++i) segment.data[i] += 1.0f;
    }
  }
  for (const Pack& p : slots_[slot_].packs) {
    // Panel by panel, spread over the threads: each panel is packed from its own columns.
    const size_t k = p.out->rows;
    parallel_panels(p.out->cols, 4, [&](size_t j0, size_t j1, size_t panel) {
      if (s.keep_bf16) {
        kernels::pack_b_bf16(k, j1 - j0, staging_halves_.data() + p.offset + j0 * p.col_stride, p.row_stride, p.col_stride,
                             p.out->halves.data() + panel * p.out->panel_stride());
        return;
      }
      kernels::pack_b(k, j1 - j0, staging_.data() + p.offset + j0 * p.col_stride, p.row_stride, p.col_stride, 1.0f,
                      p.out->data.data() + panel * p.out->panel_stride());
    });
  }
}

Model ModelLoader::finish() {
  if (closed_) throw std::invalid_argument(label_ + ": this loader has failed or finished; start a new one");
  if (position_ < data_size_) {
    fail("the data ends after " + std::to_string(position_) + " of its " + std::to_string(data_size_) +
         " bytes: the file is truncated");
  }
  closed_ = true;
  UninitializedFloats().swap(staging_);
  UninitializedHalves().swap(staging_halves_);
  ModelWeights weights;
  weights.weights = std::move(*model_weights_);
  weights.has_lm_head = has_lm_head_;
  for (size_t s = 0; s < size_t(config_.stack_count()); ++s) {
    StackWeights& stack = weights.stacks[s];
    stack.weights = std::move(*stack_weights_[s]);
    for (size_t l = 0; l < layer_weights_[s].size(); ++l) {
      auto& set = layer_weights_[s][l];
      // The attention's buffers move into its layer; the rest stay in the set.
      const auto packed = [&](Weight w) {
        Buffer& b = (*set)[w];
        PackedMatrix m;
        m.rows = b.rows;
        m.cols = b.cols;
        m.data = std::move(b.data);
        m.bf16 = std::move(b.halves);
        return m;
      };
      const auto vector = [&](Weight w) {
        Buffer& b = (*set)[w];
        Vector v = Eigen::Map<const Vector>(b.data.data(), Eigen::Index(b.data.size()));
        UninitializedFloats().swap(b.data);
        return v;
      };
      PackedAttentionWeights attention{packed(Weight::wq), packed(Weight::wk), packed(Weight::wv), packed(Weight::wo),
                                       vector(Weight::bq), vector(Weight::bk), vector(Weight::bv), vector(Weight::bo)};
      stack.layers.push_back(LayerWeights{MultiHeadAttention(config_.attention(Stack(s), int(l)), std::move(attention)), std::move(*set)});
    }
  }
  model_weights_.reset();
  for (auto& stack : stack_weights_) stack.reset();
  for (auto& layers : layer_weights_) layers.clear();
  return Model(config_, std::move(weights));
}

}  // namespace multihead
