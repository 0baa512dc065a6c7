// Generation: the model's KV caches for one text and the ablation every step applies.
#include "multihead/generation.h"

namespace multihead {

Generation::Generation(const Model& model, int capacity, std::vector<Ablation> ablation)
    : model_(&model), caches_(model.make_caches(capacity)), ablation_(std::move(ablation)) {}

ModelRun Generation::extend(const std::vector<int32_t>& ids, const LayerHook& on_layer) {
  return model_->extend(ids, caches_, on_layer, ablation_);
}

}  // namespace multihead
