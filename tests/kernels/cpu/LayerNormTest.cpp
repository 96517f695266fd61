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

}  // namespace
}  // namespace ps::kernels
