#pragma once
// Single-precision GEMM on the CPU through OpenBLAS (cblas). Row-major, like the model's tensors.

#include <string>

namespace ps::kernels {

// C[m×n] = alpha · op(A) · op(B) + beta · C, row-major; op(X) = Xᵀ when trans* is true.
void sgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc);

// Restricts OpenBLAS to `threads` threads in the calling process (one per rank, so ranks that
// run as threads do not fight over cores).
void setBlasThreads(int threads);

// The BLAS and its kernel set for this CPU, e.g. "OpenBLAS Haswell" (OpenBLAS picks it at load
// time from the CPU, or OPENBLAS_CORETYPE).
std::string blasCoreName();
// A warning when that kernel set is a generic one on a CPU with AVX2 or AVX-512 (GEMMs then run
// at a fraction of the CPU's peak); empty otherwise.
std::string blasCoreWarning();

}  // namespace ps::kernels
