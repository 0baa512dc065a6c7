// Patching: activation patching between a clean text and a corrupted twin of the same length
// (Meng et al. 2022; Wang et al. 2023's IOI circuit). Both run once, keeping what each layer
// reads and each head's output; then each patched run starts from the corrupted run's residual
// stream entering the layer it patches, not from the embeddings, and computes every later layer
// exactly as the two runs do (the last one for the measured position alone: no other row's output
// is read), so patching what the two runs share changes nothing, bit for bit.
// The metric is the logit difference token − against at one position, after any final soft cap,
// as the model predicts. It refers to its model, which must outlive it.
#pragma once

#include <cstdint>
#include <vector>

#include "multihead/model.h"

namespace multihead {

class Patching {
 public:
  // Throws if the texts' lengths differ, naming both, or an id, the position or a token is out of range.
  Patching(const Model& model, const std::vector<int32_t>& clean, const std::vector<int32_t>& corrupted, int position, int32_t token,
           int32_t against);

  double clean() const { return clean_; }          // the clean run's logit difference
  double corrupted() const { return corrupted_; }  // the corrupted run's
  // The corrupted run with head `head` of `layer` given its clean output at every position.
  double head(int layer, int head) const;
  // The corrupted run with the residual stream entering `layer` at `position` taken from the clean run.
  double position(int layer, int position) const;

 private:
  double difference(const Matrix& hidden) const;
  // Throws unless 0 ≤ layer < the model's layers, naming the range.
  void check_layer(int layer) const;

  const Model* model_;
  int position_;
  int32_t token_, against_;
  PassRecord clean_run_, corrupted_run_;
  double clean_ = 0, corrupted_ = 0;
};

}  // namespace multihead
