#include "kernels/cpu/Gemm.h"

#include <cblas.h>

namespace ps::kernels {

void sgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void setBlasThreads(int threads) {
  openblas_set_num_threads(threads);
}

}  // namespace ps::kernels
