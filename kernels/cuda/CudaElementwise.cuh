#pragma once
// Elementwise kernels on a CudaDevice's stream (CudaElementwise.cu): ComputeDevice's fill,
// residualAdd, axpy and GELU calls, contracts as there.

#include "kernels/cuda/CudaCommon.cuh"

namespace ps::kernels::cuda {

void fill(cudaStream_t stream, float* x, float value, long n);
void residualAdd(cudaStream_t stream, const float* a, const float* b, float* out, long n);
void axpy(cudaStream_t stream, float alpha, const float* x, float* y, long n);
void geluForward(cudaStream_t stream, const float* x, float* y, long n);
void lifForward(cudaStream_t stream, const float* h, float* rate, long n, int steps);
void lifBackward(cudaStream_t stream, const float* h, const float* dRate, float* dh, long n,
                 int steps, bool accumulate);
void geluBackward(cudaStream_t stream, const float* x, const float* dy, float* dx, long n,
                  bool accumulate);

}  // namespace ps::kernels::cuda
