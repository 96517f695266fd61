// LayerNorm: normalisation property, and I (dx) and W (dgamma, dbeta) against finite differences.
#include "kernels/cpu/LayerNorm.h"

#include <gtest/gtest.h>

#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

constexpr int kRows = 3;
constexpr int kCols = 6;

struct LayerNormCase {
  std::vector<float> x = test::randomVector(kRows * kCols, 21, 2.0f);
  std::vector<float> gamma = test::randomVector(kCols, 22);
  std::vector<float> beta = test::randomVector(kCols, 23);
  std::vector<float> dOut = test::randomVector(kRows * kCols, 24);
  std::vector<float> mean = std::vector<float>(kRows);
  std::vector<float> rstd = std::vector<float>(kRows);
  double loss() {
    std::vector<float> y(kRows * kCols);
    layerNormForward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), kRows,
                     kCols);
    return test::weightedSum(dOut, y.data());
  }
};

TEST(LayerNormKernel, ForwardNormalisesEachRow) {
  auto x = test::randomVector(kRows * kCols, 20, 3.0f);
  for (float& v : x)
    v += 5.0f;  // a large mean must not hurt the variance
  std::vector<float> gamma(kCols, 1.0f), beta(kCols, 0.0f), y(kRows * kCols), m(kRows), rs(kRows);
  layerNormForward(x.data(), gamma.data(), beta.data(), y.data(), m.data(), rs.data(), kRows,
                   kCols);
  for (int r = 0; r < kRows; ++r) {
    double sum = 0, sq = 0;
    for (int c = 0; c < kCols; ++c)
      sum += y[r * kCols + c];
    for (int c = 0; c < kCols; ++c)
      sq += y[r * kCols + c] * y[r * kCols + c];
    EXPECT_NEAR(sum / kCols, 0.0, 1e-6);
    EXPECT_NEAR(sq / kCols, 1.0, 1e-4);
  }
}

TEST(LayerNormKernel, InputGradientMatchesFiniteDifferences) {
  LayerNormCase c;
  c.loss();  // fills mean and rstd
  std::vector<float> dx(kRows * kCols);
  layerNormBackwardInput(c.dOut.data(), c.x.data(), c.gamma.data(), c.mean.data(), c.rstd.data(),
                         dx.data(), kRows, kCols);
  const auto r = test::checkGradient(c.x, dx, [&] { return c.loss(); });
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
}

TEST(LayerNormKernel, WeightGradientsMatchFiniteDifferences) {
  LayerNormCase c;
  c.loss();
  std::vector<float> dg(kCols, 0.0f), db(kCols, 0.0f);
  layerNormBackwardWeight(c.dOut.data(), c.x.data(), c.mean.data(), c.rstd.data(), dg.data(),
                          db.data(), kRows, kCols);
  const auto rg = test::checkGradient(c.gamma, dg, [&] { return c.loss(); });
  EXPECT_LT(rg.maxError, test::kGradTolerance) << test::describe(rg);
  const auto rb = test::checkGradient(c.beta, db, [&] { return c.loss(); });
  EXPECT_LT(rb.maxError, test::kGradTolerance) << test::describe(rb);
}

}  // namespace
}  // namespace ps::kernels
