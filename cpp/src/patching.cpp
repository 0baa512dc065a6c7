// Patching: two recorded runs, and runs that start from the layer they patch.
#include "multihead/patching.h"

#include <stdexcept>
#include <string>

namespace multihead {

Patching::Patching(const Model& model, const std::vector<int32_t>& clean, const std::vector<int32_t>& corrupted, int position,
                   int32_t token, int32_t against)
    : model_(&model), position_(position), token_(token), against_(against) {
  if (clean.size() != corrupted.size()) {
    throw std::invalid_argument("the clean text has " + std::to_string(clean.size()) + " tokens and the corrupted one " +
                                std::to_string(corrupted.size()) + ": patching needs the same number");
  }
  if (position < 0 || size_t(position) >= clean.size()) {
    throw std::invalid_argument("position must be from 0 to " + std::to_string(clean.size() - 1) + ", got " + std::to_string(position));
  }
  // Every run computes the last layer for the measured position alone (run_from's row), the
  // recorded ones too, so a patched run and the two it is normalised by share each rounding.
  clean_ = difference(model.run_from(0, model.embeddings(clean), {}, &clean_run_, position));
  corrupted_ = difference(model.run_from(0, model.embeddings(corrupted), {}, &corrupted_run_, position));
}

double Patching::difference(const Matrix& hidden) const {
  return model_->logit_difference(hidden.data(), token_, against_);  // the one row run_from kept
}

void Patching::check_layer(int layer) const {
  const int layers = int(corrupted_run_.residuals.size());
  if (layer < 0 || layer >= layers) throw std::invalid_argument("layer must be from 0 to " + std::to_string(layers - 1) + ", got " + std::to_string(layer));
}

double Patching::head(int layer, int head) const {
  check_layer(layer);
  const HeadPatch patch{.layer = layer, .head = head, .output = &clean_run_.outputs[size_t(layer)]};
  return difference(model_->run_from(layer, corrupted_run_.residuals[size_t(layer)], patch, nullptr, position_));
}

double Patching::position(int layer, int position) const {
  check_layer(layer);
  Matrix x = corrupted_run_.residuals[size_t(layer)];
  if (position < 0 || position >= x.rows()) {
    throw std::invalid_argument("position must be from 0 to " + std::to_string(x.rows() - 1) + ", got " + std::to_string(position));
  }
  x.row(position) = clean_run_.residuals[size_t(layer)].row(position);
  return difference(model_->run_from(layer, std::move(x), {}, nullptr, position_));
}

}  // namespace multihead
