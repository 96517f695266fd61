#include "kernels/cpu/Gelu.h"

#include <cmath>

#include "kernels/cpu/VectorMath.h"

namespace ps::kernels {
namespace {
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;
}  // namespace

PS_SIMD_CLONES void geluForward(const float* x, float* y, long n) {
#pragma omp simd
  for (long i = 0; i < n; ++i) {
    const float v = x[i];
    const float t = fastTanh(kSqrt2OverPi * (v + kCubic * v * v * v));
    y[i] = 0.5f * v * (1.0f + t);
  }
}

PS_SIMD_CLONES void geluBackward(const float* x, const float* dy, float* dx, long n,
                                 bool accumulate) {
  const float keep = accumulate ? 1.0f : 0.0f;  // no branch in the loop: it vectorises
#pragma omp simd
  for (long i = 0; i < n; ++i) {
    const float v = x[i];
    const float t = fastTanh(kSqrt2OverPi * (v + kCubic * v * v * v));
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kCubic * v * v);
    const float g = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * du);
    dx[i] = keep * dx[i] + g;
  }
}

}  // namespace ps::kernels
