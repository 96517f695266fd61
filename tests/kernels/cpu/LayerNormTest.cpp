// LayerNorm: normalisation property, and I (dx) and W (dgamma, dbeta) against finite differences.
#include "kernels/cpu/LayerNorm.h"

#include <gtest/gtest.h>

#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

constexpr int kNormRows = 3;
constexpr int kNormCols = 6;

struct LayerNormCase {
  std::vector<float> x = test::randomVector(kNormRows * kNormCols, 21, 2.0f);
  std::vector<float> gamma = test::randomVector(kNormCols, 22);
  std::vector<float> beta = test::randomVector(kNormCols, 23);
  std::vector<float> dOut = test::randomVector(kNormRows * kNormCols, 24);
  std::vector<float> mean = std::vector<float>(kNormRows);
  std::vector<float> rstd = std::vector<float>(kNormRows);
  double loss() {
    std::vector<float> y(kNormRows * kNormCols);
    layerNormForward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(),
                     kNormRows, kNormCols);
    return test::weightedSum(dOut, y.data());
  }
};

TEST(LayerNormKernel, ForwardNormalisesEachRow) {
  auto x = test::randomVector(kNormRows * kNormCols, 20, 3.0f);
  for (float& v : x)
    v += 5.0f;  // a large mean must not hurt the variance
  std::vector<float> gamma(kNormCols, 1.0f), beta(kNormCols, 0.0f), y(kNormRows * kNormCols),
      m(kNormRows), rs(kNormRows);
  layerNormForward(x.data(), gamma.data(), beta.data(), y.data(), m.data(), rs.data(), kNormRows,
                   kNormCols);
  for (int r = 0; r < kNormRows; ++r) {
    double sum = 0, sq = 0;
    for (int c = 0; c < kNormCols; ++c)
      sum += y[r * kNormCols + c];
    for (int c = 0; c < kNormCols; ++c)
      sq += y[r * kNormCols + c] * y[r * kNormCols + c];
    EXPECT_NEAR(sum / kNormCols, 0.0, 1e-6);
    EXPECT_NEAR(sq / kNormCols, 1.0, 1e-4);
  }
}

TEST(LayerNormKernel, InputGradientMatchesFiniteDifferences) {
  LayerNormCase c;
  c.loss();  // fills mean and rstd
  std::vector<float> dx(kNormRows * kNormCols);
  layerNormBackwardInput(c.dOut.data(), c.x.data(), c.gamma.data(), c.mean.data(), c.rstd.data(),
                         dx.data(), kNormRows, kNormCols);
  const auto r = test::checkGradient(c.x, dx, [&] { return c.loss(); });
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
}

TEST(LayerNormKernel, WeightGradientsMatchFiniteDifferences) {
  LayerNormCase c;
  c.loss();
  std::vector<float> dg(kNormCols, 0.0f), db(kNormCols, 0.0f);
  layerNormBackwardWeight(c.dOut.data(), c.x.data(), c.mean.data(), c.rstd.data(), dg.data(),
                          db.data(), kNormRows, kNormCols);
  const auto rg = test::checkGradient(c.gamma, dg, [&] { return c.loss(); });
  EXPECT_LT(rg.maxError, test::kGradTolerance) << test::describe(rg);
  const auto rb = test::checkGradient(c.beta, db, [&] { return c.loss(); });
  EXPECT_LT(rb.maxError, test::kGradTolerance) << test::describe(rb);
}

// A one-column row normalises to x̂ = 0, so its input gradient g − mean(g) is exactly 0. It was not
// on the GPU machine's CPU (~1e-5): GCC's C++ default fused dy·gamma − mean(g) into one FMA in the
// AVX2/AVX-512 clones, while the CUDA kernel rounds each product, so CPU and GPU differed.
TEST(LayerNormKernel, ASingleColumnRowsInputGradientIsExactlyZero) {
  constexpr int kRows = 64;
  auto x = test::randomVector(kRows, 31, 2.0f);
  const auto dy = test::randomVector(kRows, 32);
  const auto gamma = test::randomVector(1, 33), beta = test::randomVector(1, 34);
  std::vector<float> y(kRows), mean(kRows), rstd(kRows), dx(kRows, 1.0f);
  layerNormForward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), kRows,
                   1);
  layerNormBackwardInput(dy.data(), x.data(), gamma.data(), mean.data(), rstd.data(), dx.data(),
                         kRows, 1, /*accumulate=*/false);
  for (int r = 0; r < kRows; ++r)
    EXPECT_EQ(dx[r], 0.0f) << "row " << r << ": dy " << dy[r] << ", gamma " << gamma[0];
}

}  // namespace
}  // namespace ps::kernels
