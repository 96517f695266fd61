// The MSE loss head (kernels/cpu/Loss.cpp) and the optimizers (CpuDevice::sgdStep/adamStep).
// The loss is a two-level sum in double over a grid fixed by n alone, so it repeats bit for bit;
// the optimizer updates use __f*_rn so that nvcc fuses nothing the host does not.

#include <algorithm>

#include "kernels/cuda/CudaLossOptim.cuh"

namespace ps::kernels::cuda {
namespace {

constexpr long kMaxLossBlocks = 256;  // partial sums; the second pass is one block

__global__ void msePartialKernel(const float* y, const float* t, long n, double* partial) {
  __shared__ double shared[32];
  double sum = 0;
  for (long i = globalIndex(); i < n; i += gridStride()) {
    const double e = static_cast<double>(y[i]) - t[i];
    sum += e * e;
  }
  sum = blockSum(sum, shared);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

__global__ void mseFinishKernel(const double* partial, int count, long n, double* loss) {
  __shared__ double shared[32];
  double sum = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    sum += partial[i];
  sum = blockSum(sum, shared);
  if (threadIdx.x == 0) *loss = sum / static_cast<double>(n);
}

__global__ void mseBackwardKernel(const float* y, const float* t, float* dy, long n, float k) {
  for (long i = globalIndex(); i < n; i += gridStride())
    dy[i] = k * (y[i] - t[i]);
}

__global__ void sgdKernel(float* p, const float* g, long n, float lr) {
  for (long i = globalIndex(); i < n; i += gridStride())
    p[i] = __fsub_rn(p[i], __fmul_rn(lr, g[i]));
}

__global__ void sgdMomentumKernel(float* p, const float* g, float* v, long n, float lr,
                                  float momentum) {
  for (long i = globalIndex(); i < n; i += gridStride()) {
    const float vel = __fadd_rn(__fmul_rn(momentum, v[i]), g[i]);
    v[i] = vel;
    p[i] = __fsub_rn(p[i], __fmul_rn(lr, vel));
  }
}

__global__ void adamKernel(float* p, const float* grad, float* m, float* v, long n, float lr,
                           float beta1, float beta2, float eps, float c1, float c2) {
  for (long i = globalIndex(); i < n; i += gridStride()) {
    const float g = grad[i];
    const float mi = __fadd_rn(__fmul_rn(beta1, m[i]), __fmul_rn(1.0f - beta1, g));
    const float vi = __fadd_rn(__fmul_rn(beta2, v[i]), __fmul_rn(__fmul_rn(1.0f - beta2, g), g));
    m[i] = mi;
    v[i] = vi;
    const float step = __fmul_rn(lr, __fmul_rn(mi, c1));
    const float denom = __fadd_rn(__fsqrt_rn(__fmul_rn(vi, c2)), eps);
    p[i] = __fsub_rn(p[i], __fdiv_rn(step, denom));
  }
}

}  // namespace

void mseForward(const CudaQueue& q, const float* y, const float* target, long n, double* loss) {
  if (n <= 0) {
    checkCuda(cudaMemsetAsync(loss, 0, sizeof(double), q.stream), "cudaMemsetAsync");
    return;
  }
  const long blocks = std::min(kMaxLossBlocks, (n + kThreads - 1) / kThreads);
  Scratch partial(q, static_cast<std::size_t>(blocks) * sizeof(double));
  msePartialKernel<<<static_cast<unsigned>(blocks), kThreads, 0, q.stream>>>(y, target, n,
                                                                             partial.as<double>());
  checkLaunch("msePartial");
  mseFinishKernel<<<1, kThreads, 0, q.stream>>>(partial.as<double>(), static_cast<int>(blocks), n,
                                                loss);
  checkLaunch("mseFinish");
}

void mseBackward(cudaStream_t stream, const float* y, const float* target, float* dy, long n,
                 float scale) {
  if (n <= 0) return;
  const float k = 2.0f * scale / static_cast<float>(n);  // computed as on the host
  mseBackwardKernel<<<blocksFor(n), kThreads, 0, stream>>>(y, target, dy, n, k);
  checkLaunch("mseBackward");
}

void sgdStep(cudaStream_t stream, float* params, const float* grads, float* velocity, long n,
             float lr, float momentum) {
  if (n <= 0) return;
  if (velocity == nullptr) {
    sgdKernel<<<blocksFor(n), kThreads, 0, stream>>>(params, grads, n, lr);
  } else {
    sgdMomentumKernel<<<blocksFor(n), kThreads, 0, stream>>>(params, grads, velocity, n, lr,
                                                             momentum);
  }
  checkLaunch("sgdStep");
}

void adamStep(cudaStream_t stream, float* params, const float* grads, float* m, float* v, long n,
              float lr, float beta1, float beta2, float eps, float c1, float c2) {
  if (n <= 0) return;
  adamKernel<<<blocksFor(n), kThreads, 0, stream>>>(params, grads, m, v, n, lr, beta1, beta2, eps,
                                                    c1, c2);
  checkLaunch("adamStep");
}

}  // namespace ps::kernels::cuda
