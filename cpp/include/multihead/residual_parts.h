// ResidualParts: the residual stream at one position split into the parts that wrote it, for
// direct logit attribution (Model::explain). Row 0 is the embeddings (positions and token type
// included, after the embeddings' own norm where the model has one); then, per layer, one row per
// head (its output through its slice of the output projection, which includes what its value bias
// carries, since its attention weights sum to 1) and one for the MLP (its own output bias
// included); the last row is the biases: the output projections', and every norm's beta.
//
// A norm applied to the residual is applied to each part with its scale frozen at the value the
// real sum had at that position (TransformerLens's apply_ln_to_stack): LayerNorm centres each part
// on its own mean and divides by the sum's standard deviation, then multiplies by gamma; its beta
// joins the biases. RMSNorm divides by the sum's root mean square. The parts then still add up to
// the residual, exactly up to rounding, and each is the direct path of its component with every
// later norm held still. Kept in double, so the sum of a few hundred parts adds no rounding of its
// own.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "multihead/matrix.h"

namespace multihead {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class ResidualParts {
 public:
  ResidualParts(int position, int layers, int heads, int d_model);

  int position() const { return position_; }
  int head_row(int layer, int head) const { return 1 + layer * (heads_ + 1) + head; }
  int mlp_row(int layer) const { return 1 + layer * (heads_ + 1) + heads_; }
  int bias_row() const { return int(parts_.rows()) - 1; }
  const MatrixD& parts() const { return parts_; }  // (2 + layers·(heads + 1), d)
  MatrixD& parts() { return parts_; }
  // The residual stream at the position after the embeddings and after each layer (layers + 1, d),
  // and the final hidden state there (d): what the logit lens and the LM head read.
  const Matrix& residuals() const { return residuals_; }
  const Vector& hidden() const { return hidden_; }
  void keep_residual(int after_layers, const Matrix& x) { residuals_.row(after_layers) = x.row(position_); }
  void keep_hidden(const Matrix& x) { hidden_ = x.row(position_); }

  // The embeddings' row of x (n, d).
  void set_embeddings(const Matrix& x);
  // Layer l's heads, as rows (heads, d) already through the output projection, and its bias (d,
  // or null). With `norm_weight`, the branch passes a norm before the residual (Gemma's
  // post-attention norm): each head's row is divided by the root mean square of `branch` (d), the
  // whole attention output at the position, and multiplied by the weight.
  void add_attention(int layer, const Matrix& heads, const float* bias, const float* branch, const float* norm_weight, float eps);
  // Layer l's MLP: row `position` of its output (n, d), as added to the residual.
  void add_mlp(int layer, const Matrix& branch);
  // A norm of the residual, whose input at the position is z (d): every part through it, frozen.
  void norm(const float* z, const float* gamma, const float* beta, float eps, bool rms);

 private:
  int position_, heads_;
  MatrixD parts_;
  Matrix residuals_;
  Vector hidden_;
};

}  // namespace multihead
