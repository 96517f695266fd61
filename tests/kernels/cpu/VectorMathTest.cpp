// The vectorisable exp and tanh of the elementwise kernels (VectorMath.h) against libm over
// their whole range, and the kernels' instruction-set report.
#include "kernels/cpu/VectorMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/cpu/Gemm.h"

namespace ps::kernels {
namespace {

TEST(VectorMath, ExpIsWithinTwoUlpOfLibm) {
  double worst = 0;
  for (double x = -87.0; x <= 88.0; x += 1.0 / 1024) {
    const double want = std::exp(static_cast<float>(x));
    const double got = fastExp(static_cast<float>(x));
    worst = std::max(worst, std::fabs(got - want) / want);
  }
  EXPECT_LT(worst, 2.5e-7) << "relative error";
  EXPECT_EQ(fastExp(0.0f), 1.0f);
  EXPECT_GT(fastExp(1000.0f), 1e38f) << "clamped, not infinite";
  EXPECT_LT(fastExp(-1000.0f), 1e-37f);
}

TEST(VectorMath, TanhIsWithinTwoTenMillionthsOfLibm) {
  double worst = 0;
  for (double u = -20.0; u <= 20.0; u += 1.0 / 4096) {
    const auto x = static_cast<float>(u);
    worst = std::max(worst, std::fabs(static_cast<double>(fastTanh(x)) - std::tanh(x)));
  }
  EXPECT_LT(worst, 2e-7);
  EXPECT_EQ(fastTanh(0.0f), 0.0f);
  EXPECT_EQ(fastTanh(50.0f), 1.0f);
  EXPECT_EQ(fastTanh(-50.0f), -1.0f);
}

TEST(VectorMath, TheKernelsSayWhatTheyRunOn) {
  const std::string simd = simdLevel();
  EXPECT_TRUE(simd == "avx512" || simd == "avx2" || simd == "sse2" || simd == "scalar") << simd;
  EXPECT_EQ(blasCoreName().rfind("OpenBLAS ", 0), 0u) << blasCoreName();
  // A warning, when there is one, names the kernel set and the CPU's vector width.
  const std::string warning = blasCoreWarning();
  if (!warning.empty()) {
    EXPECT_NE(warning.find(simd), std::string::npos) << warning;
  }
}

}  // namespace
}  // namespace ps::kernels
