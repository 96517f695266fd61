#pragma once
// The MSE loss head and the optimizer steps on a CudaDevice's queue (CudaLossOptim.cu):
// ComputeDevice's mse and sgd/adam calls, contracts as there.

#include "kernels/cuda/CudaQueue.cuh"

namespace ps::kernels::cuda {

void mseForward(const CudaQueue& q, const float* y, const float* target, long n, double* loss);
void mseBackward(cudaStream_t stream, const float* y, const float* target, float* dy, long n,
                 float scale);
void sgdStep(cudaStream_t stream, float* params, const float* grads, float* velocity, long n,
             float lr, float momentum);
void adamStep(cudaStream_t stream, float* params, const float* grads, float* m, float* v, long n,
              float lr, float beta1, float beta2, float eps, float c1, float c2);

}  // namespace ps::kernels::cuda
