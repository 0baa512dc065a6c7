// Every kernel set (scalar; wasmsimd or wasmrelaxedsimd in the SIMD builds; eigen natively) against a
// float64 reference, at sizes below, at and above each kernel's tile and its multiples, so every loop
// tail runs. In the SIMD builds each SIMD kernel is also compared with its scalar twin. Attention's scores and weighted
// sums are GEMMs on packed operands; attention_test.cpp checks them, masks included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "multihead/kernels.h"
#include "reference.h"

namespace multihead::testing {
namespace {

using kernels::KernelSet;

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<const KernelSet*> kernel_sets() {
  std::vector<const KernelSet*> sets{&kernels::scalar_kernels()};
  if (&kernels::active_kernels() != sets[0]) sets.push_back(&kernels::active_kernels());
#ifdef MULTIHEAD_HAS_EIGEN_KERNELS  // the benchmark's baseline must compute the same thing
  sets.push_back(&kernels::eigen_kernels());
#endif
  return sets;
}

// A strided buffer: rows of `cols` values, `stride` apart, padding filled with a sentinel that
// kernels must neither read into results nor overwrite.
struct Strided {
  size_t rows, cols, stride;
  std::vector<float> data;
  Strided(size_t r, size_t c, uint32_t seed) : rows(r), cols(c), stride(c + 3), data(random_values(r * (c + 3), seed)) {}
  float& at(size_t i, size_t j) { return data[i * stride + j]; }
  float at(size_t i, size_t j) const { return data[i * stride + j]; }
};

class KernelTest : public ::testing::TestWithParam<const KernelSet*> {
 protected:
  const KernelSet& k() const { return *GetParam(); }
};

// B (k, n) packed for kernels::gemm.
std::vector<float> packed(const Strided& b) {
  std::vector<float> out(kernels::packed_size(b.rows, b.cols));
  kernels::pack_b(b.rows, b.cols, b.data.data(), b.stride, 1, 1.0f, out.data());
  return out;
}

TEST_P(KernelTest, GemmMatchesFloat64AcrossTileTails) {
  // Tiles are 2 rows × one 16-column panel: m and n sweep below, at and above their multiples.
  for (size_t m = 1; m <= 7; ++m) {
    for (size_t n = 1; n <= 35; ++n) {
      for (size_t depth : {1, 3, 4, 9, 17}) {
        const Strided a(m, depth, 1), b(depth, n, 2);
        const std::vector<float> bias = random_values(n, 3), bp = packed(b);
        Strided c(m, n, 4);
        const std::vector<float> before = c.data;
        k().gemm(m, n, depth, a.data.data(), a.stride, bp.data(), kernels::panel_stride(depth), bias.data(),
                 c.data.data(), c.stride);
        for (size_t i = 0; i < m; ++i) {
          for (size_t j = 0; j < n; ++j) {
            double want = bias[j];
            for (size_t p = 0; p < depth; ++p) want += double(a.at(i, p)) * b.at(p, j);
            ASSERT_NEAR(c.at(i, j), want, 1e-5) << "m=" << m << " n=" << n << " k=" << depth;
          }
          for (size_t j = n; j < c.stride; ++j) ASSERT_EQ(c.at(i, j), before[i * c.stride + j]) << "padding written";
        }
      }
    }
  }
}

// B's values rounded to bfloat16, as their bits (the upper half of each float32) and as the floats
// they stand for.
struct Bf16Operand {
  std::vector<uint16_t> bits;  // (k, n) row-major
  Strided widened;             // the same values as floats
  Bf16Operand(size_t k, size_t n, uint32_t seed) : widened(k, n, seed) {
    for (size_t p = 0; p < k; ++p) {
      for (size_t j = 0; j < n; ++j) {
        uint32_t u;
        std::memcpy(&u, &widened.at(p, j), sizeof u);
        bits.push_back(uint16_t(u >> 16));  // truncated: any bfloat16 will do
        widened.at(p, j) = kernels::bf16_to_f32(bits.back());
      }
    }
  }
};

// The F32 GEMM a set's bfloat16 GEMM accumulates as: its own, or the scalar one where the set
// borrows the scalar bfloat16 kernel (the Eigen baseline has none of its own).
kernels::GemmFn f32_twin(const KernelSet& set) {
  return set.gemm_bf16 == kernels::scalar_kernels().gemm_bf16 ? kernels::scalar_kernels().gemm : set.gemm;
}

TEST_P(KernelTest, Bf16WeightGemmIsTheF32GemmOfTheWidenedWeightsToTheLastBit) {
  // bfloat16 weights stay bfloat16 in memory; the kernel widens them as it reads, so its result must
  // be exactly the F32 kernel's on the widened operand, across every tile tail.
  for (size_t m = 1; m <= 7; ++m) {
    for (size_t n = 1; n <= 35; ++n) {
      for (size_t depth : {1, 3, 9, 17, 33}) {
        const Strided a(m, depth, 60);
        const Bf16Operand b(depth, n, 61);
        const std::vector<float> bias = random_values(n, 62);
        std::vector<uint16_t> bp(kernels::packed_size(depth, n));
        kernels::pack_b_bf16(depth, n, b.bits.data(), n, 1, bp.data());
        std::vector<float> c1(m * n), c2(m * n);
        k().gemm_bf16(m, n, depth, a.data.data(), a.stride, bp.data(), kernels::panel_stride(depth), bias.data(), c1.data(), n);
        f32_twin(k())(m, n, depth, a.data.data(), a.stride, packed(b.widened).data(), kernels::panel_stride(depth), bias.data(), c2.data(), n);
        ASSERT_EQ(c1, c2) << "m=" << m << " n=" << n << " k=" << depth;
      }
    }
  }
  // A transposed operand (nn.Linear's (out, in)) packs from its strides as pack_b's does.
  const Bf16Operand w(7, 5, 63);  // (out = 7, in = 5): B = wᵀ (5, 7)
  std::vector<uint16_t> bp(kernels::packed_size(5, 7));
  kernels::pack_b_bf16(5, 7, w.bits.data(), 1, 5, bp.data());
  const Strided a(3, 5, 64);
  std::vector<float> c(3 * 7);
  k().gemm_bf16(3, 7, 5, a.data.data(), a.stride, bp.data(), kernels::panel_stride(5), nullptr, c.data(), 7);
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 7; ++j) {
      double want = 0;
      for (size_t p = 0; p < 5; ++p) want += double(a.at(i, p)) * w.widened.data[j * w.widened.stride + p];
      ASSERT_NEAR(c[i * 7 + j], want, 1e-5) << i << ", " << j;
    }
  }
}

TEST_P(KernelTest, GemmWithoutBiasStartsFromZero) {
  const Strided a(5, 6, 5), b(6, 19, 6);
  Strided c(5, 19, 7);
  k().gemm(5, 19, 6, a.data.data(), a.stride, packed(b).data(), kernels::panel_stride(6), nullptr, c.data.data(), c.stride);
  for (size_t j : {0, 15, 16, 18}) {
    double want = 0;
    for (size_t p = 0; p < 6; ++p) want += double(a.at(4, p)) * b.at(p, j);
    EXPECT_NEAR(c.at(4, j), want, 1e-5) << "column " << j;
  }
}

TEST_P(KernelTest, GemmCanUseTheFirstRowsOfAPackedOperand) {
  // As attention does with V under a causal mask: B packed with 11 rows, multiplied using 4.
  const Strided a(3, 4, 8), b(11, 21, 9);
  const std::vector<float> bp = packed(b);
  Strided c(3, 21, 10);
  k().gemm(3, 21, 4, a.data.data(), a.stride, bp.data(), kernels::panel_stride(11), nullptr, c.data.data(), c.stride);
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 21; ++j) {
      double want = 0;
      for (size_t p = 0; p < 4; ++p) want += double(a.at(i, p)) * b.at(p, j);
      ASSERT_NEAR(c.at(i, j), want, 1e-5) << i << "," << j;
    }
  }
}

TEST(PackB, PacksATransposeScaledAsAttentionScoresNeedIt) {
  // scores = Q·(scale·K)ᵀ: K (n, d) read with a column stride packs as the (d, n) operand.
  for (size_t n : {1, 15, 16, 17, 40}) {
    const Strided q(5, 7, 11), key(n, 7, 12);
    std::vector<float> kt(kernels::packed_size(7, n));
    kernels::pack_b(7, n, key.data.data(), 1, key.stride, 0.25f, kt.data());
    Strided s(5, n, 13);
    kernels::scalar_kernels().gemm(5, n, 7, q.data.data(), q.stride, kt.data(), kernels::panel_stride(7), nullptr,
                                   s.data.data(), s.stride);
    for (size_t i = 0; i < 5; ++i) {
      for (size_t j = 0; j < n; ++j) {
        double dot = 0;
        for (size_t p = 0; p < 7; ++p) dot += double(q.at(i, p)) * key.at(j, p);
        ASSERT_NEAR(s.at(i, j), 0.25 * dot, 1e-5) << "n=" << n;
      }
    }
    // Past the last column a panel holds zeros, which the kernels may read but never store.
    for (size_t c = n % kernels::kPanelWidth; n % kernels::kPanelWidth && c < kernels::kPanelWidth; ++c) {
      ASSERT_EQ(kt[kt.size() - kernels::kPanelWidth + c], 0.0f);
    }
  }
}

TEST_P(KernelTest, SoftmaxMatchesFloat64AcrossTails) {
  for (size_t n = 1; n <= 19; ++n) {
    Strided s(3, n, 20);
    for (size_t j = 0; j < n; ++j) s.at(1, j) *= 40.0f;  // a wide range: exp must not overflow
    if (n > 1) s.at(2, n / 2) = -kInf;                   // one hidden key
    Strided p(3, n, 21);
    k().softmax(3, n, s.data.data(), s.stride, p.data.data(), p.stride);
    for (size_t i = 0; i < 3; ++i) {
      double max = -INFINITY, sum = 0;
      for (size_t j = 0; j < n; ++j) max = std::max(max, double(s.at(i, j)));
      for (size_t j = 0; j < n; ++j) sum += std::exp(s.at(i, j) - max);
      for (size_t j = 0; j < n; ++j) {
        ASSERT_NEAR(p.at(i, j), std::exp(s.at(i, j) - max) / sum, 2e-7) << "n=" << n << " row " << i;
      }
    }
  }
}

TEST_P(KernelTest, SoftmaxOfARowWithEveryKeyHiddenIsZeros) {
  for (size_t n = 1; n <= 9; ++n) {
    std::vector<float> s(n, -kInf), p(n, 123.0f);
    k().softmax(1, n, s.data(), n, p.data(), n);
    for (float v : p) ASSERT_EQ(v, 0.0f) << "n=" << n;
  }
}

TEST_P(KernelTest, SoftmaxInPlaceEqualsOutOfPlace) {
  Strided s(2, 13, 22);
  std::vector<float> out(2 * s.stride);
  k().softmax(2, 13, s.data.data(), s.stride, out.data(), s.stride);
  k().softmax(2, 13, s.data.data(), s.stride, s.data.data(), s.stride);
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < 13; ++j) ASSERT_EQ(s.at(i, j), out[i * s.stride + j]);
  }
}

TEST_P(KernelTest, LayerNormMatchesFloat64AcrossTails) {
  for (size_t n = 1; n <= 19; ++n) {
    Strided x(3, n, 60);
    for (size_t j = 0; j < n; ++j) x.at(2, j) = 1000.0f + x.at(2, j);  // large mean, small spread
    const std::vector<float> gamma = random_values(n, 61), beta = random_values(n, 62);
    Strided y(3, n, 63);
    k().layer_norm(3, n, x.data.data(), x.stride, gamma.data(), beta.data(), 1e-5f, y.data.data(), y.stride);
    for (size_t i = 0; i < 3; ++i) {
      double mean = 0, var = 0;
      for (size_t j = 0; j < n; ++j) mean += x.at(i, j);
      mean /= n;
      for (size_t j = 0; j < n; ++j) var += (x.at(i, j) - mean) * (x.at(i, j) - mean);
      var /= n;
      for (size_t j = 0; j < n; ++j) {
        const double want = (x.at(i, j) - mean) / std::sqrt(var + 1e-5) * gamma[j] + beta[j];
        ASSERT_NEAR(y.at(i, j), want, 2e-4) << "n=" << n << " row " << i;
      }
    }
  }
}

TEST_P(KernelTest, LayerNormInPlaceEqualsOutOfPlace) {
  Strided x(2, 11, 64);
  const std::vector<float> gamma = random_values(11, 65), beta = random_values(11, 66);
  std::vector<float> out(2 * x.stride);
  k().layer_norm(2, 11, x.data.data(), x.stride, gamma.data(), beta.data(), 1e-12f, out.data(), x.stride);
  k().layer_norm(2, 11, x.data.data(), x.stride, gamma.data(), beta.data(), 1e-12f, x.data.data(), x.stride);
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < 11; ++j) ASSERT_EQ(x.at(i, j), out[i * x.stride + j]);
  }
}

TEST_P(KernelTest, GeluMatchesTheErfFormulaInFloat64AcrossTails) {
  for (size_t count = 1; count <= 11; ++count) {
    std::vector<float> x = random_values(count, 70 + count, 6.0f), y(count);
    x[0] = count % 2 ? 0.0f : -9.0f;
    k().gelu(count, x.data(), y.data());
    for (size_t i = 0; i < count; ++i) {
      const double want = 0.5 * x[i] * (1 + std::erf(x[i] / std::sqrt(2.0)));
      ASSERT_NEAR(y[i], want, 1e-6 * (1 + std::fabs(x[i]))) << "x=" << x[i];
    }
  }
}

TEST_P(KernelTest, GeluTanhMatchesTheTanhFormulaInFloat64AcrossTails) {
  // Counts below, at and above the 4-lane vector, and values from the far negative tail (where
  // 1 + tanh cancels) to the far positive one.
  for (size_t count = 1; count <= 11; ++count) {
    std::vector<float> x = random_values(count, 90 + count, 6.0f), y(count);
    x[0] = count % 2 ? 0.0f : -9.0f;
    if (count > 5) x[5] = 12.0f;
    k().gelu_tanh(count, x.data(), y.data());
    for (size_t i = 0; i < count; ++i) {
      const double z = x[i];
      const double want = 0.5 * z * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (z + 0.044715 * z * z * z)));
      ASSERT_NEAR(y[i], want, 1e-6 * (1 + std::fabs(z))) << k().name << " x=" << x[i];
    }
  }
}

TEST_P(KernelTest, GeluTanhDiffersFromTheErfFormWhereTheApproximationShows) {
  // Both forms agree to about 1e-3: the test of each against its own formula would not notice a
  // kernel set that used the wrong one, this does. At x = -1.5 they differ by 2.18e-4.
  const float x = -1.5f;
  float erf_form, tanh_form;
  k().gelu(1, &x, &erf_form);
  k().gelu_tanh(1, &x, &tanh_form);
  EXPECT_NEAR(double(tanh_form) - double(erf_form), -0.10042842 + 0.10021080, 2e-6) << k().name;
}

TEST_P(KernelTest, RmsNormMatchesFloat64AcrossTailsAndInPlace) {
  for (size_t n = 1; n <= 19; ++n) {
    Strided x(3, n, 100);
    for (size_t j = 0; j < n; ++j) x.at(2, j) *= 1000.0f;  // a row of large values
    const std::vector<float> weight = random_values(n, 101);
    Strided y(3, n, 102);
    k().rms_norm(3, n, x.data.data(), x.stride, weight.data(), 1e-6f, y.data.data(), y.stride);
    for (size_t i = 0; i < 3; ++i) {
      double squares = 0;
      for (size_t j = 0; j < n; ++j) squares += double(x.at(i, j)) * x.at(i, j);
      const double inv_rms = 1 / std::sqrt(squares / n + 1e-6);
      for (size_t j = 0; j < n; ++j) ASSERT_NEAR(y.at(i, j), x.at(i, j) * inv_rms * weight[j], 2e-5) << k().name << " n=" << n << " row " << i;
    }
    k().rms_norm(3, n, x.data.data(), x.stride, weight.data(), 1e-6f, x.data.data(), x.stride);
    for (size_t i = 0; i < 3; ++i) {
      for (size_t j = 0; j < n; ++j) ASSERT_EQ(x.at(i, j), y.at(i, j)) << "in place, n=" << n;
    }
  }
}

TEST_P(KernelTest, SiluMatchesItsFormulaInFloat64AcrossTails) {
  for (size_t count = 1; count <= 11; ++count) {
    std::vector<float> x = random_values(count, 110 + count, 8.0f), y(count);
    x[0] = count % 2 ? 0.0f : -95.0f;  // past exp's range on the negative side
    if (count > 5) x[5] = 95.0f;
    k().silu(count, x.data(), y.data());
    for (size_t i = 0; i < count; ++i) {
      const double z = x[i];
      ASSERT_NEAR(y[i], z / (1 + std::exp(-z)), 1e-6 * (1 + std::fabs(z))) << k().name << " x=" << x[i];
    }
  }
}

// A plain (rows, d) table of bfloat16 values, and the same values as floats.
struct Bf16Table {
  std::vector<uint16_t> bits;
  std::vector<float> widened;
  Bf16Table(size_t rows, size_t d, uint32_t seed) : widened(random_values(rows * d, seed)) {
    for (float& v : widened) {
      uint32_t u;
      std::memcpy(&u, &v, sizeof u);
      bits.push_back(uint16_t(u >> 16));
      v = kernels::bf16_to_f32(bits.back());
    }
  }
};

TEST_P(KernelTest, GemvIsEachRowTimesTheVectorAndABf16TableGivesItsWidenedOnesSums) {
  // Every tail of the 8 lanes, odd and even row counts (the SIMD kernel takes rows in pairs).
  for (size_t rows = 1; rows <= 5; ++rows) {
    for (size_t d = 1; d <= 35; ++d) {
      const Bf16Table t(rows, d, 70);
      const std::vector<float> x = random_values(d, 71);
      std::vector<float> f32(rows), bf16(rows);
      k().gemv(rows, d, t.widened.data(), x.data(), f32.data());
      k().gemv_bf16(rows, d, t.bits.data(), x.data(), bf16.data());
      ASSERT_EQ(f32, bf16) << "rows=" << rows << " d=" << d;
      for (size_t r = 0; r < rows; ++r) {
        double want = 0;
        for (size_t p = 0; p < d; ++p) want += double(t.widened[r * d + p]) * x[p];
        ASSERT_NEAR(f32[r], want, 1e-5) << "rows=" << rows << " d=" << d << " r=" << r;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKernelSet, KernelTest, ::testing::ValuesIn(kernel_sets()),
                         [](const auto& info) { return std::string(info.param->name); });

#ifdef __wasm_simd128__
// SIMD against scalar: the twins must agree. Only the SIMD WASM builds have both.
class SimdTwinTest : public ::testing::Test {
 protected:
  const KernelSet& simd = kernels::active_kernels();
  const KernelSet& scalar = kernels::scalar_kernels();
};

// The results of two twins that sum the same terms in the same order. In the SIMD build each
// multiply-add is a multiply and an add, as in the scalar kernels: the same bits. In the
// relaxed-SIMD build the engine may fuse them (V8 does, on a CPU with FMA3), saving the product's
// rounding. With at most 34 terms of size ≤ 1 (a bias and 33 products of values in [-1, 1]) each
// sum is within 34 · 2⁻²⁴ · 34 ≈ 7e-5 of the exact one, so the two within 1.4e-4.
void expect_same_sums(const std::vector<float>& simd, const std::vector<float>& scalar, const std::string& where) {
#ifdef __wasm_relaxed_simd__
  ASSERT_EQ(simd.size(), scalar.size()) << where;
  for (size_t i = 0; i < simd.size(); ++i) ASSERT_NEAR(simd[i], scalar[i], 1.4e-4) << where << " at " << i;
#else
  ASSERT_EQ(simd, scalar) << where;
#endif
}

TEST_F(SimdTwinTest, GemvSumsAsScalarDoes) {
  // Up to 9 rows: the float32 kernel's blocks of four, then of two, then one (4 + 2 + 1 = 7), every mix.
  for (size_t rows = 1; rows <= 9; ++rows) {
    for (size_t d = 1; d <= 35; ++d) {
      const Bf16Table t(rows, d, 72);
      const std::vector<float> x = random_values(d, 73);
      std::vector<float> a(rows), b(rows), c(rows), e(rows);
      simd.gemv(rows, d, t.widened.data(), x.data(), a.data());
      scalar.gemv(rows, d, t.widened.data(), x.data(), b.data());
      simd.gemv_bf16(rows, d, t.bits.data(), x.data(), c.data());
      scalar.gemv_bf16(rows, d, t.bits.data(), x.data(), e.data());
      expect_same_sums(a, b, "rows=" + std::to_string(rows) + " d=" + std::to_string(d));
      expect_same_sums(c, e, "bf16 rows=" + std::to_string(rows) + " d=" + std::to_string(d));
    }
  }
}

TEST_F(SimdTwinTest, GemmSumsAsScalarDoes) {
  for (size_t m : {1, 2, 3, 5, 8, 11}) {
    for (size_t n = 1; n <= 35; ++n) {
      const Strided a(m, 33, 40), b(33, n, 41);
      const std::vector<float> bias = random_values(n, 42), bp = packed(b);
      std::vector<float> c1(m * n), c2(m * n);
      simd.gemm(m, n, 33, a.data.data(), a.stride, bp.data(), kernels::panel_stride(33), bias.data(), c1.data(), n);
      scalar.gemm(m, n, 33, a.data.data(), a.stride, bp.data(), kernels::panel_stride(33), bias.data(), c2.data(), n);
      expect_same_sums(c1, c2, "m=" + std::to_string(m) + " n=" + std::to_string(n));
    }
  }
}

TEST_F(SimdTwinTest, Bf16WeightGemmSumsAsScalarDoes) {
  for (size_t m : {1, 2, 3, 5, 8, 11}) {
    for (size_t n = 1; n <= 35; ++n) {
      const Strided a(m, 33, 43);
      const Bf16Operand b(33, n, 44);
      const std::vector<float> bias = random_values(n, 45);
      std::vector<uint16_t> bp(kernels::packed_size(33, n));
      kernels::pack_b_bf16(33, n, b.bits.data(), n, 1, bp.data());
      std::vector<float> c1(m * n), c2(m * n);
      simd.gemm_bf16(m, n, 33, a.data.data(), a.stride, bp.data(), kernels::panel_stride(33), bias.data(), c1.data(), n);
      scalar.gemm_bf16(m, n, 33, a.data.data(), a.stride, bp.data(), kernels::panel_stride(33), bias.data(), c2.data(), n);
      expect_same_sums(c1, c2, "m=" + std::to_string(m) + " n=" + std::to_string(n));
    }
  }
}

TEST_F(SimdTwinTest, SoftmaxAgreesWithScalar) {
  for (size_t n = 1; n <= 21; ++n) {
    std::vector<float> s = random_values(3 * n, 50, 8.0f), p1(3 * n), p2(3 * n);
    for (size_t j = 1; j < n; j += 2) s[n + j] = -kInf;  // hidden keys in the middle row
    simd.softmax(3, n, s.data(), n, p1.data(), n);
    scalar.softmax(3, n, s.data(), n, p2.data(), n);
    for (size_t i = 0; i < 3 * n; ++i) ASSERT_NEAR(p1[i], p2[i], 2e-7) << "softmax n=" << n;
  }
}

TEST_F(SimdTwinTest, LayerNormAndGeluAgreeWithScalar) {
  for (size_t n = 1; n <= 21; ++n) {
    const std::vector<float> x = random_values(4 * n, 80, 4.0f), gamma = random_values(n, 81), beta = random_values(n, 82);
    std::vector<float> y1(4 * n), y2(4 * n);
    simd.layer_norm(4, n, x.data(), n, gamma.data(), beta.data(), 1e-12f, y1.data(), n);
    scalar.layer_norm(4, n, x.data(), n, gamma.data(), beta.data(), 1e-12f, y2.data(), n);
    for (size_t i = 0; i < 4 * n; ++i) ASSERT_NEAR(y1[i], y2[i], 1e-5) << "layer norm n=" << n;
    simd.gelu(4 * n, x.data(), y1.data());
    scalar.gelu(4 * n, x.data(), y2.data());
    for (size_t i = 0; i < 4 * n; ++i) ASSERT_NEAR(y1[i], y2[i], 1e-6) << "gelu x=" << x[i];
    simd.gelu_tanh(4 * n, x.data(), y1.data());
    scalar.gelu_tanh(4 * n, x.data(), y2.data());
    for (size_t i = 0; i < 4 * n; ++i) ASSERT_NEAR(y1[i], y2[i], 1e-6 * (1 + std::fabs(x[i]))) << "gelu_tanh x=" << x[i];
  }
}

TEST_F(SimdTwinTest, RmsNormAndSiluAgreeWithScalar) {
  for (size_t n = 1; n <= 21; ++n) {
    const std::vector<float> x = random_values(4 * n, 120, 4.0f), weight = random_values(n, 121);
    std::vector<float> y1(4 * n), y2(4 * n);
    simd.rms_norm(4, n, x.data(), n, weight.data(), 1e-6f, y1.data(), n);
    scalar.rms_norm(4, n, x.data(), n, weight.data(), 1e-6f, y2.data(), n);
    for (size_t i = 0; i < 4 * n; ++i) ASSERT_NEAR(y1[i], y2[i], 1e-5) << "rms norm n=" << n;
    simd.silu(4 * n, x.data(), y1.data());
    scalar.silu(4 * n, x.data(), y2.data());
    for (size_t i = 0; i < 4 * n; ++i) ASSERT_NEAR(y1[i], y2[i], 1e-6 * (1 + std::fabs(x[i]))) << "silu x=" << x[i];
  }
}

#endif  // __wasm_simd128__

}  // namespace
}  // namespace multihead::testing
