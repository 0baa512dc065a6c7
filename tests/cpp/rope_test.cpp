// RoPE's frequencies against Hugging Face's formulas (Llama 3.2-1B's llama3 bands among them) and
// its rotation's defining properties: rotate_half's pairing of i with i + r/2, the dimensions past
// r left alone, positions from first_position, and scores that depend only on relative position.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "multihead/rope.h"

namespace multihead::testing {
namespace {

// Llama-3.2-1B's config: head_dim 64, rope_theta 500000, rope_scaling {rope_type llama3, factor 32,
// low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192}.
RopeConfig llama32() {
  return {.rotary_dim = 64, .theta = 500000, .scaling = RopeScaling::llama3, .factor = 32, .low_freq_factor = 1,
          .high_freq_factor = 4, .original_max_position = 8192};
}

double unscaled(const RopeConfig& c, int i) { return std::pow(c.theta, -2.0 * i / c.rotary_dim); }

TEST(Rope, Llama3ScalingKeepsHighFrequenciesDividesLowOnesAndBlendsTheBandBetween) {
  const RopeConfig c = llama32();
  const std::vector<double> f = rope_inv_freq(c);
  ASSERT_EQ(f.size(), 32u);
  for (int i = 0; i <= 14; ++i) EXPECT_DOUBLE_EQ(f[i], unscaled(c, i)) << i;
  EXPECT_NEAR(f[15], 1.290548e-3, 1e-9);
  EXPECT_NEAR(f[16], 4.295568e-4, 1e-10);
  EXPECT_NEAR(f[17], 9.708288e-5, 1e-11);
  for (int i = 18; i < 32; ++i) EXPECT_DOUBLE_EQ(f[i], unscaled(c, i) / 32) << i;
}

TEST(Rope, FrequenciesAreTheBaseToMinusTwoIOverRAndLinearScalingDividesThem) {
  RopeConfig c{.rotary_dim = 16, .theta = 10000};  // Pythia: 16 of 64 dimensions rotate
  const std::vector<double> f = rope_inv_freq(c);
  ASSERT_EQ(f.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(f[i], std::pow(10000.0, -i / 8.0)) << i;
  c.scaling = RopeScaling::linear;
  c.factor = 4;
  const std::vector<double> linear = rope_inv_freq(c);
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(linear[i], f[i] / 4) << i;
}

// One row of `heads` heads of width dh at `position`, rotated.
Matrix rotated(const RopeConfig& c, int dh, int heads, const Matrix& row, int position) {
  Matrix x = row;
  rope_rotation(c, dh)(x, heads, position);
  return x;
}

TEST(Rope, RotatesDimensionIWithIPlusHalfTheRotaryWidthNotWithItsNeighbour) {
  const RopeConfig c{.rotary_dim = 8, .theta = 100};
  const std::vector<double> f = rope_inv_freq(c);
  const int dh = 8, position = 3;
  for (int i = 0; i < 4; ++i) {
    Matrix x = Matrix::Zero(1, dh);
    x(0, i) = 1;
    const Matrix y = rotated(c, dh, 1, x, position);
    Matrix expected = Matrix::Zero(1, dh);
    expected(0, i) = float(std::cos(position * f[i]));
    expected(0, i + 4) = float(std::sin(position * f[i]));
    EXPECT_TRUE(y.isApprox(expected, 1e-6f)) << "dimension " << i << ": " << y;
    // The partner is i + 4, so the neighbour i + 1 (the interleaved convention) stays 0.
    EXPECT_EQ(y(0, i + 1 == 4 ? 5 : i + 1), 0.0f) << i;
  }
}

TEST(Rope, LeavesTheDimensionsPastTheRotaryWidthAndRotatesEveryHeadAlike) {
  const RopeConfig c{.rotary_dim = 4, .theta = 10000};
  const int dh = 10, heads = 3;
  const Matrix x = Matrix::Random(2, heads * dh);
  Matrix y = x;
  rope_rotation(c, dh)(y, heads, 7);
  for (int h = 0; h < heads; ++h) {
    EXPECT_EQ(y.block(0, h * dh + 4, 2, dh - 4), x.block(0, h * dh + 4, 2, dh - 4)) << "head " << h;
    // Each head is rotated as a lone head would be.
    Matrix lone = x.block(0, h * dh, 2, dh);
    rope_rotation(c, dh)(lone, 1, 7);
    EXPECT_EQ(y.block(0, h * dh, 2, dh), lone) << "head " << h;
  }
}

TEST(Rope, RowRIsAtFirstPositionPlusR) {
  const RopeConfig c = llama32();
  const Matrix x = Matrix::Random(12, 2 * 64);
  Matrix whole = x;
  rope_rotation(c, 64)(whole, 2, 0);
  Matrix tail = x.bottomRows(5);
  rope_rotation(c, 64)(tail, 2, 7);
  EXPECT_EQ(tail, whole.bottomRows(5));
}

TEST(Rope, AQueryKeyScoreDependsOnlyOnTheirDistance) {
  const RopeConfig c{.rotary_dim = 32, .theta = 10000};
  const Matrix q = Matrix::Random(1, 32), k = Matrix::Random(1, 32);
  auto score = [&](int m, int n) { return rotated(c, 32, 1, q, m).row(0).dot(rotated(c, 32, 1, k, n).row(0)); };
  for (auto [m, n] : {std::pair{5, 2}, {40, 7}, {3, 3}}) {
    EXPECT_NEAR(score(m, n), score(m + 100, n + 100), 1e-4) << m << ", " << n;
  }
  EXPECT_GT(std::abs(score(5, 2) - score(5, 3)), 1e-4);  // and it does depend on the distance
}

TEST(Rope, BadConfigsAreRefusedByName) {
  auto message = [](const RopeConfig& c, int dh) {
    try {
      rope_rotation(c, dh);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({.rotary_dim = 7}, 8).find("rotary dimensions must be a positive even number, got 7"), std::string::npos);
  EXPECT_NE(message({.rotary_dim = 16}, 8).find("at most head_dim (8), got 16"), std::string::npos);
  EXPECT_NE(message({.rotary_dim = 8, .theta = 1}, 8).find("theta must be a finite number above 1"), std::string::npos);
  RopeConfig bands = llama32();
  bands.high_freq_factor = 1;
  EXPECT_NE(message(bands, 64).find("high_freq_factor must be finite and above low_freq_factor"), std::string::npos);
  bands = llama32();
  bands.factor = std::nan("");
  EXPECT_NE(message(bands, 64).find("scaling factor must be a finite positive number"), std::string::npos);
}

}  // namespace
}  // namespace multihead::testing
