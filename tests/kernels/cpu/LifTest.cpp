// Leaky integrate-and-fire firing rates (the spiking block's activation): spike counts worked by
// hand, and the surrogate gradient through time against its closed form for one and two steps.
#include "kernels/cpu/Lif.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ps::kernels {
namespace {

double surrogateOf(double membrane) {
  const double d = 1.0 + kLifSlope * std::fabs(membrane - kLifThreshold);
  return 1.0 / (d * d);
}

TEST(LifKernel, RatesCountTheSpikesOfAConstantCurrent) {
  // decay 0.9, threshold 1, soft reset, 4 steps:
  //  h = 0.5: membrane 0.5, 0.95, 1.355 (spike -> 0.355), 0.8195: one spike, rate 1/4;
  //  h = 0.3: 0.3, 0.57, 0.813, 1.0317 (spike): rate 1/4;
  //  h = 2: a spike every step (2, then 1 + 0.9·1 + 2 ...): rate 1; h <= 0: none.
  const float h[] = {0.5f, 0.3f, 2.0f, 0.0f, -1.0f, 0.2f};
  const float expected[] = {0.25f, 0.25f, 1.0f, 0.0f, 0.0f, 0.0f};
  float rate[6];
  lifForward(h, rate, 6, 4);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(rate[i], expected[i]) << "h = " << h[i];
  // More steps resolve smaller currents: h = 0.2 first fires at step 7 (0.2·Σ0.9^k >= 1).
  lifForward(h + 5, rate, 1, 16);
  EXPECT_GT(rate[0], 0.0f);
  EXPECT_LT(rate[0], 0.25f);
}

TEST(LifKernel, BackwardIsTheSurrogateThroughTime) {
  const float h[] = {0.5f, 1.3f, -0.4f, 0.95f};
  const float dRate[] = {1.0f, -2.0f, 0.5f, 3.0f};
  float dh[4];
  // One step: membrane = h, dh = dRate · σ'(h).
  lifBackward(h, dRate, dh, 4, 1);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(dh[i], dRate[i] * surrogateOf(h[i]), 1e-6) << "h = " << h[i];
  // Two steps: u1 = h, u2 = 0.9·(u1 - spike1) + h; the second step's gradient also reaches h
  // through u1 (factor 0.9), the reset detached: dh = dRate/2 · (σ'(u1) + 1.9·σ'(u2)).
  lifBackward(h, dRate, dh, 4, 2);
  for (int i = 0; i < 4; ++i) {
    const double u1 = h[i], u2 = kLifDecay * (u1 - (u1 >= 1 ? 1 : 0)) + h[i];
    const double want = dRate[i] / 2.0 * (surrogateOf(u1) + (1 + kLifDecay) * surrogateOf(u2));
    EXPECT_NEAR(dh[i], want, 1e-6) << "h = " << h[i];
  }
  // Accumulating adds to what is there.
  float acc[4] = {1, 1, 1, 1};
  lifBackward(h, dRate, acc, 4, 2, true);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(acc[i], 1 + dh[i], 1e-6);
}

}  // namespace
}  // namespace ps::kernels
