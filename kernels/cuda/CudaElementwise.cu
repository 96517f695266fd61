// Elementwise kernels: fill, residual add, axpy, GELU (tanh approximation), LIF firing rates.
// Same formulas as kernels/cpu/Elementwise.cpp, Gelu.cpp and Lif.cpp. Where the cpu loop does a
// multiply then an add, the
// __f*_rn intrinsics stop nvcc from fusing them into one FMA, so the bits match the host's.

#include "kernels/cuda/CudaElementwise.cuh"

#include "kernels/cpu/Lif.h"

namespace ps::kernels::cuda {
namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;

__global__ void fillKernel(float* x, float value, long n) {
  for (long i = globalIndex(); i < n; i += gridStride())
    x[i] = value;
}

__global__ void residualAddKernel(const float* a, const float* b, float* out, long n) {
  for (long i = globalIndex(); i < n; i += gridStride())
    out[i] = a[i] + b[i];
}

__global__ void axpyKernel(float alpha, const float* x, float* y, long n) {
  for (long i = globalIndex(); i < n; i += gridStride())
    y[i] = __fadd_rn(y[i], __fmul_rn(alpha, x[i]));
}

__device__ float geluTanh(float v) {
  return tanhf(kSqrt2OverPi * (v + kCubic * v * v * v));
}

__global__ void geluForwardKernel(const float* x, float* y, long n) {
  for (long i = globalIndex(); i < n; i += gridStride()) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + geluTanh(v));
  }
}

__global__ void geluBackwardKernel(const float* x, const float* dy, float* dx, long n,
                                   bool accumulate) {
  for (long i = globalIndex(); i < n; i += gridStride()) {
    const float v = x[i];
    const float t = geluTanh(v);
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kCubic * v * v);
    const float g = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * du);
    dx[i] = accumulate ? dx[i] + g : g;
  }
}

// As kernels/cpu/Lif.cpp, every product and sum rounded on its own (no FMA): a spike is a
// threshold comparison, and one contracted rounding would flip it.
__global__ void lifForwardKernel(const float* h, float* rate, long n, int steps) {
  const float perSpike = 1.0f / static_cast<float>(steps);
  for (long i = globalIndex(); i < n; i += gridStride()) {
    const float current = h[i];
    float membrane = 0, fired = 0;
    for (int t = 0; t < steps; ++t) {
      membrane = __fadd_rn(__fmul_rn(kLifDecay, membrane), current);
      if (membrane >= kLifThreshold) {
        fired += 1;
        membrane = __fsub_rn(membrane, kLifThreshold);
      }
    }
    rate[i] = __fmul_rn(fired, perSpike);
  }
}

__device__ float lifSurrogate(float membrane) {
  const float d = __fadd_rn(1.0f, __fmul_rn(kLifSlope, fabsf(__fsub_rn(membrane, kLifThreshold))));
  return __fdiv_rn(1.0f, __fmul_rn(d, d));
}

__global__ void lifBackwardKernel(const float* h, const float* dRate, float* dh, long n, int steps,
                                  bool accumulate) {
  const float perSpike = 1.0f / static_cast<float>(steps);
  for (long i = globalIndex(); i < n; i += gridStride()) {
    float before[kLifMaxSteps];
    const float current = h[i];
    float membrane = 0;
    for (int t = 0; t < steps; ++t) {
      membrane = __fadd_rn(__fmul_rn(kLifDecay, membrane), current);
      before[t] = membrane;
      if (membrane >= kLifThreshold) membrane = __fsub_rn(membrane, kLifThreshold);
    }
    const float spikeGrad = __fmul_rn(dRate[i], perSpike);
    float carried = 0, grad = 0;
    for (int t = steps - 1; t >= 0; --t) {
      const float atStep = __fadd_rn(carried, __fmul_rn(spikeGrad, lifSurrogate(before[t])));
      grad = __fadd_rn(grad, atStep);
      carried = __fmul_rn(kLifDecay, atStep);
    }
    dh[i] = accumulate ? __fadd_rn(dh[i], grad) : grad;
  }
}

}  // namespace

void lifForward(cudaStream_t stream, const float* h, float* rate, long n, int steps) {
  if (n <= 0) return;
  lifForwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(h, rate, n, steps);
  checkLaunch("lifForward");
}

void lifBackward(cudaStream_t stream, const float* h, const float* dRate, float* dh, long n,
                 int steps, bool accumulate) {
  if (n <= 0) return;
  lifBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(h, dRate, dh, n, steps, accumulate);
  checkLaunch("lifBackward");
}

void fill(cudaStream_t stream, float* x, float value, long n) {
  if (n <= 0) return;
  fillKernel<<<blocksFor(n), kThreads, 0, stream>>>(x, value, n);
  checkLaunch("fill");
}

void residualAdd(cudaStream_t stream, const float* a, const float* b, float* out, long n) {
  if (n <= 0) return;
  residualAddKernel<<<blocksFor(n), kThreads, 0, stream>>>(a, b, out, n);
  checkLaunch("residualAdd");
}

void axpy(cudaStream_t stream, float alpha, const float* x, float* y, long n) {
  if (n <= 0) return;
  axpyKernel<<<blocksFor(n), kThreads, 0, stream>>>(alpha, x, y, n);
  checkLaunch("axpy");
}

void geluForward(cudaStream_t stream, const float* x, float* y, long n) {
  if (n <= 0) return;
  geluForwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(x, y, n);
  checkLaunch("geluForward");
}

void geluBackward(cudaStream_t stream, const float* x, const float* dy, float* dx, long n,
                  bool accumulate) {
  if (n <= 0) return;
  geluBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(x, dy, dx, n, accumulate);
  checkLaunch("geluBackward");
}

}  // namespace ps::kernels::cuda
