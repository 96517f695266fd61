#pragma once
// Layer norm on a CudaDevice's queue (CudaLayerNorm.cu): ComputeDevice's layer norm calls,
// contracts as there.

#include "kernels/cuda/CudaColumnSums.cuh"

namespace ps::kernels::cuda {

void layerNormForward(cudaStream_t stream, const float* x, const float* gamma, const float* beta,
                      float* y, float* mean, float* rstd, int rows, int cols);
void layerNormBackwardInput(cudaStream_t stream, const float* dy, const float* x,
                            const float* gamma, const float* mean, const float* rstd, float* dx,
                            int rows, int cols, bool accumulate);
void layerNormBackwardWeight(const CudaQueue& q, const float* dy, const float* x, const float* mean,
                             const float* rstd, float* dgamma, float* dbeta, int rows, int cols);

}  // namespace ps::kernels::cuda
