// libFuzzer target: the whole model load from bytes, as the npm package does it: config.json and
// model.safetensors (split as fuzz_inputs.h says: config, NUL, header, NUL, data) → ModelConfig →
// SafetensorsHeader → ModelLoader fed the data in chunks whose size the input's length picks (so
// values split across writes are fuzzed too) → Model, then a few token ids through Model::run,
// checking the hook's traces and the result's shapes, layer_trace and, with a head, the logits'
// length. A finding is a crash, a sanitizer report, a leak, a hang, or an exception other than
// std::invalid_argument (overflow's OverflowError among them) and multihead::LimitError. It does
// not check the numbers (the GoogleTest suite compares them with references).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "fuzz_inputs.h"
#include "multihead/model_loader.h"

namespace {

void run_and_check(const multihead::Model& model, const std::vector<int32_t>& ids) {
  const multihead::ModelConfig& c = model.config();
  const size_t n = ids.size();
  int layers = 0;
  const multihead::ModelRun r = model.run(ids, [&](multihead::Stack, int l, const multihead::AttentionTrace& t) {
    if (l != layers++ || t.weights.size() != size_t(c.num_attention_heads) * n * n) std::abort();
  });
  if (layers != c.num_hidden_layers || r.inputs.size() != size_t(layers)) std::abort();
  if (r.hidden.rows() != Eigen::Index(n) || r.hidden.cols() != c.hidden_size) std::abort();
  if (model.layer_trace(multihead::Stack::encoder, layers - 1, r.inputs.back()).weights.size() != size_t(c.num_attention_heads) * n * n) std::abort();
  if (model.has_lm_head() && model.logits(r.hidden.data()).size() != size_t(c.vocab_size)) std::abort();
}

multihead::Model load(const multihead::ModelConfig& config, const std::vector<uint8_t>& file) {
  const multihead::SafetensorsHeader header(file.data(), file.size());
  multihead::ModelLoader loader(config, multihead::SafetensorsHeader(file.data(), header.data_start()));
  const size_t end = std::min(file.size(), header.file_size());
  const size_t chunk = 1 + file.size() % 61;
  for (size_t at = header.data_start(); at < end; at += chunk) loader.write(file.data() + at, std::min(chunk, end - at));
  return loader.finish();  // throws if the file is shorter than its header says
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const multihead::fuzz::ModelInput input = multihead::fuzz::split_model_input(data, size);
  try {
    const multihead::ModelConfig config = multihead::parse_model_config(input.config);
    const multihead::Model model = load(config, input.weights);
    // One token, then a few: the ids 0, 1, 2, … a sentence of the smallest vocabulary could have.
    const int n = std::min({config.vocab_size, config.max_tokens(), 5});
    std::vector<int32_t> ids{0};
    run_and_check(model, ids);
    for (int i = 1; i < n; ++i) ids.push_back(i);
    run_and_check(model, ids);
    try {  // an id outside the vocabulary must be refused
      model.run({config.vocab_size});
      std::abort();
    } catch (const std::invalid_argument&) {
    }
  } catch (const std::invalid_argument&) {
  } catch (const multihead::LimitError&) {
  }
  return 0;
}
