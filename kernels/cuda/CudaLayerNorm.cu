// Layer norm over the last dimension, as kernels/cpu/LayerNorm.cpp: one block per row, the
// row's sums in double (two passes for the variance), then the same float expressions per
// element. The weight gradients are deterministic column sums (CudaColumnSums.cu).

#include "kernels/cpu/LayerNorm.h"
#include "kernels/cuda/CudaLayerNorm.cuh"

namespace ps::kernels::cuda {
namespace {

// Rows are usually a few hundred to a few thousand wide: 256 threads read them coalesced.
constexpr int kRowThreads = 256;

__global__ void layerNormForwardKernel(const float* x, const float* gamma, const float* beta,
                                       float* y, float* mean, float* rstd, int cols, float eps) {
  __shared__ double shared[32];
  const long off = static_cast<long>(blockIdx.x) * cols;
  const float* xr = x + off;
  double sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    sum += xr[c];
  const double mu = blockSum(sum, shared) / cols;
  double sq = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const double d = xr[c] - mu;
    sq += d * d;
  }
  const double var = blockSum(sq, shared) / cols;
  const float m = static_cast<float>(mu);
  const float rs = static_cast<float>(1.0 / sqrt(var + static_cast<double>(eps)));
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = m;
    rstd[blockIdx.x] = rs;
  }
  float* yr = y + off;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    yr[c] = __fadd_rn(__fmul_rn(__fmul_rn(__fsub_rn(xr[c], m), rs), gamma[c]), beta[c]);
}

// dx = rstd · (g − mean(g) − x̂ · mean(g·x̂)) with g = dy·gamma.
__global__ void layerNormBackwardInputKernel(const float* dy, const float* x, const float* gamma,
                                             const float* mean, const float* rstd, float* dx,
                                             int cols, bool accumulate) {
  __shared__ double shared[32];
  const long off = static_cast<long>(blockIdx.x) * cols;
  const float m = mean[blockIdx.x];
  const float rs = rstd[blockIdx.x];
  double sumG = 0;
  double sumGx = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float g = __fmul_rn(dy[off + c], gamma[c]);
    sumG += g;
    sumGx += __fmul_rn(g, __fmul_rn(__fsub_rn(x[off + c], m), rs));
  }
  const float meanG = static_cast<float>(blockSum(sumG, shared) / cols);
  const float meanGx = static_cast<float>(blockSum(sumGx, shared) / cols);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float xhat = __fmul_rn(__fsub_rn(x[off + c], m), rs);
    const float g = __fmul_rn(dy[off + c], gamma[c]);
    const float v = __fmul_rn(rs, __fsub_rn(__fsub_rn(g, meanG), __fmul_rn(xhat, meanGx)));
    dx[off + c] = accumulate ? dx[off + c] + v : v;
  }
}

}  // namespace

void layerNormForward(cudaStream_t stream, const float* x, const float* gamma, const float* beta,
                      float* y, float* mean, float* rstd, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  layerNormForwardKernel<<<rows, kRowThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols,
                                                           kLayerNormEps);
  checkLaunch("layerNormForward");
}

void layerNormBackwardInput(cudaStream_t stream, const float* dy, const float* x,
                            const float* gamma, const float* mean, const float* rstd, float* dx,
                            int rows, int cols, bool accumulate) {
  if (rows <= 0 || cols <= 0) return;
  layerNormBackwardInputKernel<<<rows, kRowThreads, 0, stream>>>(dy, x, gamma, mean, rstd, dx, cols,
                                                                 accumulate);
  checkLaunch("layerNormBackwardInput");
}

void layerNormBackwardWeight(const CudaQueue& q, const float* dy, const float* x, const float* mean,
                             const float* rstd, float* dgamma, float* dbeta, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  columnSums(q, dy, x, mean, rstd, dgamma, dbeta, rows, cols);
}

}  // namespace ps::kernels::cuda
