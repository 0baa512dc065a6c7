// Generation: one text written token by token with a model's KV caches (model.h's extend). The
// prompt is run once (prefill), then each step runs one new token: its query over every cached
// key, the MLP, and the hidden state whose logits choose the next token (the JS side samples).
// The caches hold layers × capacity × kv·dh × 2 floats, allocated when it is made, and checked
// before. It refers to its model, which must outlive it (the JS Model disposes its generations
// first).
#pragma once

#include <cstdint>
#include <vector>

#include "multihead/model.h"

namespace multihead {

class Generation {
 public:
  // Room for `capacity` positions (prompt and output); `ablation` as Model::run's, for every step.
  // An encoder–decoder writes its target over `memory`, the encoder's output for the source
  // (run(source).hidden), whose cross-attention keys and values are projected once, here.
  Generation(const Model& model, int capacity, std::vector<Ablation> ablation, const Matrix* memory = nullptr);

  // Runs ids after the positions written so far: the prompt, then one id a step. The hook sees
  // each layer's trace (n new queries over every position); a failure leaves nothing written.
  ModelRun extend(const std::vector<int32_t>& ids, const LayerHook& on_layer = {});

  int length() const { return caches_.front().length; }      // positions written
  int capacity() const { return caches_.front().capacity(); }  // positions it can hold

 private:
  const Model* model_;
  std::vector<KvCache> caches_;
  std::vector<KvCache> memory_;  // an encoder–decoder's: each cross layer's keys and values of the source
  std::vector<Ablation> ablation_;
};

}  // namespace multihead
