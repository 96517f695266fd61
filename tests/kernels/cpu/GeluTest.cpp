// GELU (tanh approximation): reference values and finite differences.
#include "kernels/cpu/Gelu.h"

#include <gtest/gtest.h>

#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

TEST(GeluKernel, ForwardMatchesReferenceValues) {
  // torch.nn.functional.gelu(x, approximate="tanh").
  const float x[] = {-2.0f, -0.5f, 0.0f, 1.0f, 3.0f};
  const float expected[] = {-0.0454023f, -0.1542859f, 0.0f, 0.8411920f, 2.9963627f};
  float y[5];
  geluForward(x, y, 5);
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(y[i], expected[i], 1e-6f) << "x = " << x[i];
}

TEST(GeluKernel, BackwardMatchesFiniteDifferences) {
  auto x = test::randomVector(40, 11, 1.5f);
  const auto w = test::randomVector(40, 12);
  std::vector<float> dx(40);
  geluBackward(x.data(), w.data(), dx.data(), 40);
  const auto r = test::checkGradient(x, dx, [&] {
    std::vector<float> y(40);
    geluForward(x.data(), y.data(), 40);
    return test::weightedSum(w, y.data());
  });
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);

  std::vector<float> acc(40, 0.5f);
  geluBackward(x.data(), w.data(), acc.data(), 40, true);
  for (int i = 0; i < 40; ++i)
    EXPECT_FLOAT_EQ(acc[i], dx[i] + 0.5f);
}

}  // namespace
}  // namespace ps::kernels
