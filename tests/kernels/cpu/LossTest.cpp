// MSE and softmax cross-entropy: values and gradients.
#include "kernels/cpu/Loss.h"

#include <cmath>

#include <gtest/gtest.h>

#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

TEST(LossKernel, MseValueAndGradient) {
  const float y[] = {1, 2, 3};
  const float t[] = {0, 2, 5};
  EXPECT_DOUBLE_EQ(mseForward(y, t, 3), 5.0 / 3.0);

  auto yv = test::randomVector(10, 51);
  const auto tv = test::randomVector(10, 52);
  std::vector<float> dy(10);
  mseBackward(yv.data(), tv.data(), dy.data(), 10, 0.5f);
  const auto r =
      test::checkGradient(yv, dy, [&] { return 0.5 * mseForward(yv.data(), tv.data(), 10); });
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
}

TEST(LossKernel, CrossEntropyValueAndGradient) {
  constexpr int rows = 3;
  constexpr int classes = 5;
  const int labels[rows] = {0, 4, 2};
  const float uniform[classes] = {0, 0, 0, 0, 0};
  float probs[rows * classes];
  EXPECT_NEAR(crossEntropyForward(uniform, labels, probs, 1, classes), std::log(5.0), 1e-6);

  auto logits = test::randomVector(rows * classes, 53, 2.0f);
  std::vector<float> p(rows * classes), dl(rows * classes);
  crossEntropyForward(logits.data(), labels, p.data(), rows, classes);
  crossEntropyBackward(p.data(), labels, dl.data(), rows, classes);
  const auto r = test::checkGradient(logits, dl, [&] {
    std::vector<float> scratch(rows * classes);
    return crossEntropyForward(logits.data(), labels, scratch.data(), rows, classes);
  });
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
}

}  // namespace
}  // namespace ps::kernels
