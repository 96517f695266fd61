#pragma once
// Deterministic column sums over [rows×cols] (CudaColumnSums.cu): bias and layer norm gradients.

#include "kernels/cuda/CudaQueue.cuh"

namespace ps::kernels::cuda {

// out2[c] += Σ_r dy[r,c]; and when x is set, out1[c] += Σ_r dy[r,c]·x̂[r,c] (layer norm).
void columnSums(const CudaQueue& q, const float* dy, const float* x, const float* mean,
                const float* rstd, float* out1, float* out2, int rows, int cols);

}  // namespace ps::kernels::cuda
