// ResidualParts: the parts of one position's residual stream, and the norms applied to them frozen.
#include "multihead/residual_parts.h"

#include <cmath>

namespace multihead {

ResidualParts::ResidualParts(int position, int layers, int heads, int d_model)
    : position_(position), heads_(heads), parts_(MatrixD::Zero(2 + layers * (heads + 1), d_model)), residuals_(layers + 1, d_model) {}

void ResidualParts::set_embeddings(const Matrix& x) { parts_.row(0) = x.row(position_).cast<double>(); }

void ResidualParts::add_attention(int layer, const Matrix& heads, const float* bias, const float* branch, const float* norm_weight,
                                  float eps) {
  const Eigen::Index d = parts_.cols();
  Eigen::RowVectorXd scale = Eigen::RowVectorXd::Ones(d);
  if (norm_weight) {
    double square = 0;
    for (Eigen::Index c = 0; c < d; ++c) square += double(branch[c]) * double(branch[c]);
    const double rms = std::sqrt(square / double(d) + double(eps));
    for (Eigen::Index c = 0; c < d; ++c) scale[c] = double(norm_weight[c]) / rms;
  }
  for (int h = 0; h < heads_; ++h) parts_.row(head_row(layer, h)) += heads.row(h).cast<double>().cwiseProduct(scale);
  if (bias) {
    for (Eigen::Index c = 0; c < d; ++c) parts_(bias_row(), c) += double(bias[c]) * scale[c];
  }
}

void ResidualParts::add_mlp(int layer, const Matrix& branch) { parts_.row(mlp_row(layer)) += branch.row(position_).cast<double>(); }

void ResidualParts::norm(const float* z, const float* gamma, const float* beta, float eps, bool rms) {
  const Eigen::Index d = parts_.cols();
  double mean = 0;
  if (!rms) {
    for (Eigen::Index c = 0; c < d; ++c) mean += z[c];
    mean /= double(d);
  }
  double square = 0;
  for (Eigen::Index c = 0; c < d; ++c) square += (z[c] - mean) * (z[c] - mean);
  const double scale = 1.0 / std::sqrt(square / double(d) + double(eps));
  for (Eigen::Index r = 0; r < parts_.rows(); ++r) {
    auto part = parts_.row(r);
    if (!rms) part.array() -= part.mean();
    for (Eigen::Index c = 0; c < d; ++c) part[c] *= scale * double(gamma[c]);
  }
  if (beta) {
    for (Eigen::Index c = 0; c < d; ++c) parts_(bias_row(), c) += double(beta[c]);
  }
}

}  // namespace multihead
