// Linear layer: forward against a hand computation, I and W parts against finite differences.
#include "kernels/cpu/Linear.h"

#include <gtest/gtest.h>

#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

using test::checkGradient;
using test::describe;
using test::kGradTolerance;
using test::randomVector;

constexpr int kRows = 3;
constexpr int kIn = 4;
constexpr int kOut = 5;

struct LinearCase {
  std::vector<float> x = randomVector(kRows * kIn, 1);
  std::vector<float> w = randomVector(kOut * kIn, 2, 0.5f);
  std::vector<float> b = randomVector(kOut, 3);
  std::vector<float> dOut = randomVector(kRows * kOut, 4);
  double loss() {
    std::vector<float> y(kRows * kOut);
    linearForward(x.data(), w.data(), b.data(), y.data(), kRows, kIn, kOut);
    return test::weightedSum(dOut, y.data());
  }
};

TEST(LinearKernel, ForwardMatchesHandComputation) {
  const float x[] = {1, 2};         // 1×2
  const float w[] = {1, 0, 3, -1};  // 2×2
  const float b[] = {0.5f, 1};
  float y[2];
  linearForward(x, w, b, y, 1, 2, 2);
  EXPECT_FLOAT_EQ(y[0], 1.5f);
  EXPECT_FLOAT_EQ(y[1], 2.0f);
  linearForward(x, w, nullptr, y, 1, 2, 2);
  EXPECT_FLOAT_EQ(y[0], 1.0f);
}

TEST(LinearKernel, InputGradientMatchesFiniteDifferences) {
  LinearCase c;
  std::vector<float> dx(kRows * kIn);
  linearBackwardInput(c.dOut.data(), c.w.data(), dx.data(), kRows, kIn, kOut);
  const auto r = checkGradient(c.x, dx, [&] { return c.loss(); });
  EXPECT_LT(r.maxError, kGradTolerance) << describe(r);
}

TEST(LinearKernel, WeightGradientsMatchFiniteDifferences) {
  LinearCase c;
  std::vector<float> dw(kOut * kIn, 0.0f);
  std::vector<float> db(kOut, 0.0f);
  linearBackwardWeight(c.dOut.data(), c.x.data(), dw.data(), db.data(), kRows, kIn, kOut);
  const auto rw = checkGradient(c.w, dw, [&] { return c.loss(); });
  EXPECT_LT(rw.maxError, kGradTolerance) << describe(rw);
  const auto rb = checkGradient(c.b, db, [&] { return c.loss(); });
  EXPECT_LT(rb.maxError, kGradTolerance) << describe(rb);
}

TEST(LinearKernel, WeightGradientAccumulatesAndInputGradientCanAccumulate) {
  LinearCase c;
  std::vector<float> dw1(kOut * kIn, 0.0f), db1(kOut, 0.0f);
  linearBackwardWeight(c.dOut.data(), c.x.data(), dw1.data(), db1.data(), kRows, kIn, kOut);
  std::vector<float> dw2 = dw1, db2 = db1;
  linearBackwardWeight(c.dOut.data(), c.x.data(), dw2.data(), db2.data(), kRows, kIn, kOut);
  for (std::size_t i = 0; i < dw1.size(); ++i)
    EXPECT_FLOAT_EQ(dw2[i], 2 * dw1[i]);
  for (std::size_t i = 0; i < db1.size(); ++i)
    EXPECT_FLOAT_EQ(db2[i], 2 * db1[i]);

  std::vector<float> dx(kRows * kIn);
  linearBackwardInput(c.dOut.data(), c.w.data(), dx.data(), kRows, kIn, kOut);
  std::vector<float> acc(kRows * kIn, 1.0f);
  linearBackwardInput(c.dOut.data(), c.w.data(), acc.data(), kRows, kIn, kOut, true);
  for (std::size_t i = 0; i < dx.size(); ++i)
    EXPECT_FLOAT_EQ(acc[i], dx[i] + 1.0f);
}

}  // namespace
}  // namespace ps::kernels
