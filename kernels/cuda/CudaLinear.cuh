#pragma once
// The linear layer Y = X·Wᵀ + b on a CudaDevice's queue (CudaLinear.cu): ComputeDevice's
// linear calls, contracts as there.

#include "kernels/cuda/CudaColumnSums.cuh"
#include "kernels/cuda/CudaGemm.cuh"

namespace ps::kernels::cuda {

void linearForward(const CudaQueue& q, const float* X, const float* W, const float* b, float* Y,
                   int rows, int in, int out);
void linearBackwardInput(const CudaQueue& q, const float* dY, const float* W, float* dX, int rows,
                         int in, int out, bool accumulate);
void linearBackwardWeight(const CudaQueue& q, const float* dY, const float* X, float* dW, float* db,
                          int rows, int in, int out);

}  // namespace ps::kernels::cuda
