// Row softmax and causal softmax: probabilities, masking, and finite differences.
#include "kernels/cpu/Softmax.h"

#include <gtest/gtest.h>

#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

TEST(SoftmaxKernel, RowsSumToOneAndLargeLogitsStayFinite) {
  std::vector<float> x = {1000.0f, 1001.0f, 999.0f, -1.0f, 0.0f, 1.0f};
  std::vector<float> y(6);
  softmaxForward(x.data(), y.data(), 2, 3);
  for (int r = 0; r < 2; ++r)
    EXPECT_NEAR(y[r * 3] + y[r * 3 + 1] + y[r * 3 + 2], 1.0f, 1e-6f);
  EXPECT_NEAR(y[1], 0.66524096f, 1e-6f);
}

TEST(SoftmaxKernel, BackwardMatchesFiniteDifferences) {
  auto x = test::randomVector(12, 31, 2.0f);
  const auto w = test::randomVector(12, 32);
  std::vector<float> y(12), dx(12);
  softmaxForward(x.data(), y.data(), 3, 4);
  softmaxBackward(y.data(), w.data(), dx.data(), 3, 4);
  const auto r = test::checkGradient(x, dx, [&] {
    std::vector<float> out(12);
    softmaxForward(x.data(), out.data(), 3, 4);
    return test::weightedSum(w, out.data());
  });
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
}

TEST(SoftmaxKernel, CausalMasksTheFutureAndMatchesFiniteDifferences) {
  constexpr int n = 4;
  auto scores = test::randomVector(n * n, 33, 2.0f);
  const auto w = test::randomVector(n * n, 34);
  std::vector<float> p = scores;
  causalSoftmaxForward(p.data(), n);
  for (int i = 0; i < n; ++i) {
    float sum = 0;
    for (int j = 0; j < n; ++j) {
      if (j > i) {
        EXPECT_EQ(p[i * n + j], 0.0f);
      }
      sum += p[i * n + j];
    }
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
  }
  std::vector<float> ds = w;
  causalSoftmaxBackward(p.data(), ds.data(), n);
  const auto r = test::checkGradient(scores, ds, [&] {
    std::vector<float> out = scores;
    causalSoftmaxForward(out.data(), n);
    return test::weightedSum(w, out.data());
  });
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      EXPECT_EQ(ds[i * n + j], 0.0f);
}

}  // namespace
}  // namespace ps::kernels
