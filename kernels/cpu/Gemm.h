#pragma once
// Single-precision GEMM on the CPU through OpenBLAS (cblas). Row-major, like the model's tensors.

namespace ps::kernels {

// C[m×n] = alpha · op(A) · op(B) + beta · C, row-major; op(X) = Xᵀ when trans* is true.
void sgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc);

// Restricts OpenBLAS to `threads` threads in the calling process (one per rank, so ranks that
// run as threads do not fight over cores).
void setBlasThreads(int threads);

}  // namespace ps::kernels
