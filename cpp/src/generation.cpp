// Generation: the model's KV caches for one text and the ablation every step applies.
#include "multihead/generation.h"

#include <stdexcept>

namespace multihead {

Generation::Generation(const Model& model, int capacity, std::vector<Ablation> ablation, const Matrix* memory)
    : model_(&model), caches_(model.make_caches(capacity)), ablation_(std::move(ablation)) {
  if (model.encoder_decoder() != (memory != nullptr)) {
    throw std::invalid_argument(model.encoder_decoder() ? "an encoder–decoder writes over the encoder's output: memory is missing"
                                                        : "a one-stack model writes over no encoder's output");
  }
  if (memory) memory_ = model.project_memory(*memory);
}

ModelRun Generation::extend(const std::vector<int32_t>& ids, const LayerHook& on_layer) {
  return model_->extend(ids, caches_, on_layer, ablation_, memory_.empty() ? nullptr : &memory_);
}

}  // namespace multihead
