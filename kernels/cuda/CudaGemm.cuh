#pragma once
// Row-major GEMMs on a CudaDevice's cuBLAS handle (CudaGemm.cu: how, and the bf16 path).

#include "kernels/cuda/CudaQueue.cuh"

namespace ps::kernels::cuda {

// Row-major C = alpha·op(A)·op(B) + beta·C (op = transpose when trans*), or `batch` such
// products at fixed element strides. Fp32: cuBLAS SGEMM; Bf16: operands rounded first.
struct GemmCall {
  bool transA = false, transB = false;
  int m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const float* A = nullptr;
  int lda = 0;
  long long strideA = 0;
  const float* B = nullptr;
  int ldb = 0;
  long long strideB = 0;
  float beta = 0.0f;
  float* C = nullptr;
  int ldc = 0;
  long long strideC = 0;
  int batch = 1;
};

void gemm(const CudaQueue& q, const GemmCall& g);

}  // namespace ps::kernels::cuda
