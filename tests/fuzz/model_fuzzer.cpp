// libFuzzer target: the whole model load from bytes, as the npm package does it: config.json and
// model.safetensors (split as fuzz_inputs.h says: config, NUL, header, NUL, data) → ModelConfig → SafetensorsFile → Model, then a
// few token ids through Model::run, checking the trace's shapes. A finding is a crash, a
// sanitizer report, a leak, a hang, or an exception other than std::invalid_argument (overflow's
// OverflowError among them) and multihead::LimitError. It does not check the numbers (the
// GoogleTest suite compares them with references).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "fuzz_inputs.h"
#include "multihead/model.h"

namespace {

void run_and_check(const multihead::Model& model, const std::vector<int32_t>& ids) {
  const multihead::ModelConfig& c = model.config();
  const multihead::ModelTrace t = model.run(ids);
  const auto n = Eigen::Index(ids.size());
  if (t.layers.size() != size_t(c.num_hidden_layers) || t.inputs.size() != t.layers.size()) std::abort();
  if (t.hidden.rows() != n || t.hidden.cols() != c.hidden_size) std::abort();
  for (const multihead::AttentionTrace& layer : t.layers) {
    if (layer.weights.size() != size_t(c.num_attention_heads) * size_t(n) * size_t(n)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const multihead::fuzz::ModelInput input = multihead::fuzz::split_model_input(data, size);
  try {
    const multihead::ModelConfig config = multihead::parse_bert_config(input.config);
    const multihead::Model model(config, multihead::SafetensorsFile(input.weights));
    // One token, then a few: the ids 0, 1, 2, … a sentence of the smallest vocabulary could have.
    const int n = std::min({config.vocab_size, config.max_position_embeddings, 5});
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
