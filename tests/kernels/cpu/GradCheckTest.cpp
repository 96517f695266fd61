// The finite-difference check itself: it must fail on a wrong gradient, or the kernel tests
// prove nothing. Also the elementwise helpers the residual connections use.
#include <gtest/gtest.h>

#include "kernels/cpu/Elementwise.h"
#include "kernels/cpu/Gelu.h"
#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

double geluLoss(const std::vector<float>& x, const std::vector<float>& w) {
  std::vector<float> y(x.size());
  geluForward(x.data(), y.data(), static_cast<long>(x.size()));
  return test::weightedSum(w, y.data());
}

TEST(GradCheck, RejectsSlightlyWrongGradients) {
  auto x = test::randomVector(20, 61);
  const auto w = test::randomVector(20, 62);
  std::vector<float> dx(20);
  geluBackward(x.data(), w.data(), dx.data(), 20);
  const auto loss = [&] { return geluLoss(x, w); };
  EXPECT_LT(test::checkGradient(x, dx, loss).maxError, test::kGradTolerance);

  auto scaled = dx;
  for (float& g : scaled)
    g *= 1.05f;  // 5% too large everywhere
  EXPECT_GT(test::checkGradient(x, scaled, loss).maxError, test::kGradTolerance);

  auto oneWrong = dx;
  oneWrong[7] = -oneWrong[7];  // one sign flip
  const auto r = test::checkGradient(x, oneWrong, loss);
  EXPECT_GT(r.maxError, test::kGradTolerance);
  EXPECT_EQ(r.worst, 7u);
}

TEST(ElementwiseKernel, ResidualAddAxpyAndScale) {
  const float a[] = {1, 2, 3};
  const float b[] = {0.5f, -2, 4};
  float out[3];
  residualAdd(a, b, out, 3);
  EXPECT_FLOAT_EQ(out[0], 1.5f);
  EXPECT_FLOAT_EQ(out[1], 0.0f);
  axpy(2.0f, a, out, 3);
  EXPECT_FLOAT_EQ(out[2], 13.0f);
  scale(0.5f, out, 3);
  EXPECT_FLOAT_EQ(out[2], 6.5f);
}

}  // namespace
}  // namespace ps::kernels
