#include "kernels/cpu/Gelu.h"

#include <cmath>

namespace ps::kernels {
namespace {
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;
}  // namespace

void geluForward(const float* x, float* y, long n) {
  for (long i = 0; i < n; ++i) {
    const float v = x[i];
    const float t = std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v));
    y[i] = 0.5f * v * (1.0f + t);
  }
}

void geluBackward(const float* x, const float* dy, float* dx, long n, bool accumulate) {
  for (long i = 0; i < n; ++i) {
    const float v = x[i];
    const float t = std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v));
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kCubic * v * v);
    const float g = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * du);
    dx[i] = accumulate ? dx[i] + g : g;
  }
}

}  // namespace ps::kernels
