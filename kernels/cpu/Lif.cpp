#include "kernels/cpu/Lif.h"

#include <cmath>

namespace ps::kernels {
namespace {

float surrogate(float membrane) {
  const float d = 1.0f + kLifSlope * std::fabs(membrane - kLifThreshold);
  return 1.0f / (d * d);
}

}  // namespace

void lifForward(const float* h, float* rate, long n, int steps) {
  const float perSpike = 1.0f / static_cast<float>(steps);
  for (long i = 0; i < n; ++i) {
    const float current = h[i];
    float membrane = 0, fired = 0;
    for (int t = 0; t < steps; ++t) {
      membrane = kLifDecay * membrane + current;
      if (membrane >= kLifThreshold) {
        fired += 1;
        membrane -= kLifThreshold;
      }
    }
    rate[i] = fired * perSpike;
  }
}

void lifBackward(const float* h, const float* dRate, float* dh, long n, int steps,
                 bool accumulate) {
  const float perSpike = 1.0f / static_cast<float>(steps);
  float before[kLifMaxSteps];  // each step's membrane before the spike decision
  for (long i = 0; i < n; ++i) {
    const float current = h[i];
    float membrane = 0;
    for (int t = 0; t < steps; ++t) {
      membrane = kLifDecay * membrane + current;
      before[t] = membrane;
      if (membrane >= kLifThreshold) membrane -= kLifThreshold;
    }
    // Backwards through time: ∂u_t/∂h = 1 and ∂u_t/∂u_{t-1} = decay (reset detached).
    const float spikeGrad = dRate[i] * perSpike;
    float carried = 0, grad = 0;
    for (int t = steps - 1; t >= 0; --t) {
      const float atStep = carried + spikeGrad * surrogate(before[t]);
      grad += atStep;
      carried = kLifDecay * atStep;
    }
    dh[i] = accumulate ? dh[i] + grad : grad;
  }
}

}  // namespace ps::kernels
