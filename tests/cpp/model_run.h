// Test helper: runs a Model and keeps what its layer hook saw (each layer's attention weights, and
// the whole trace of each layer), since Model::run itself holds one layer's trace at a time.
#pragma once

#include <vector>

#include "multihead/model.h"

namespace multihead::testing {

struct CollectedRun {
  ModelRun run;
  std::vector<AttentionTrace> layers;  // copies of the hook's traces, one per layer
  std::vector<const float*> buffers;   // where each trace's weights lived during its call
};

inline CollectedRun run_collecting(const Model& model, const std::vector<int32_t>& ids,
                                   const std::vector<Ablation>& ablation = {}) {
  CollectedRun out;
  out.run = model.run(ids, [&](Stack, int, const AttentionTrace& t) {
    out.layers.push_back(t);
    out.buffers.push_back(t.weights.data());
  }, ablation);
  return out;
}

}  // namespace multihead::testing
