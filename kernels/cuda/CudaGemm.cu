// Row-major GEMM on cuBLAS (column-major). A row-major C[m×n] = op(A)·op(B) is, read as
// column-major, Cᵀ[n×m] = op(B)ᵀ·op(A)ᵀ: swap the operands and m/n, keep the transpose flags and
// leading dimensions. Strided views (an attention head inside [R×3H] qkv) need nothing else.
//
// Fp32: cublasSgemm / cublasSgemmStridedBatched with default math (no TF32).
// Bf16: each operand's span is rounded to __nv_bfloat16 into scratch (same layout, so the same
// lda and strides apply), then cublasGemmEx with CUDA_R_16BF inputs, a CUDA_R_32F output and
// CUBLAS_COMPUTE_32F: tensor cores, fp32 accumulation, beta·C added in fp32.

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <string>

#include "kernels/cuda/CudaGemm.cuh"

namespace ps::kernels::cuda {
namespace {

__global__ void toBf16Kernel(const float* x, __nv_bfloat16* y, long n) {
  for (long i = globalIndex(); i < n; i += gridStride())
    y[i] = __float2bfloat16_rn(x[i]);
}

// Elements from the first to the last one a (possibly batched, strided) row-major operand of
// `rows` stored rows and `cols` stored columns touches.
long long operandSpan(int rows, int cols, int ld, long long stride, int batch) {
  return static_cast<long long>(batch - 1) * stride + static_cast<long long>(rows - 1) * ld + cols;
}

cublasOperation_t op(bool trans) {
  return trans ? CUBLAS_OP_T : CUBLAS_OP_N;
}

}  // namespace

void gemm(const CudaQueue& q, const GemmCall& g) {
  if (g.m <= 0 || g.n <= 0 || g.batch <= 0) return;
  // No layer has an empty inner dimension; cuBLAS would silently return beta·C for one.
  if (g.k <= 0) throw DeviceError("gemm with inner dimension " + std::to_string(g.k));
  if (q.dtype == DType::Fp32) {
    if (g.batch == 1) {
      checkCublas(cublas().sgemm(q.blas, op(g.transB), op(g.transA), g.n, g.m, g.k, &g.alpha, g.B,
                                 g.ldb, g.A, g.lda, &g.beta, g.C, g.ldc),
                  "cublasSgemm");
    } else {
      checkCublas(cublas().sgemmStridedBatched(q.blas, op(g.transB), op(g.transA), g.n, g.m, g.k,
                                               &g.alpha, g.B, g.ldb, g.strideB, g.A, g.lda,
                                               g.strideA, &g.beta, g.C, g.ldc, g.strideC, g.batch),
                  "cublasSgemmStridedBatched");
    }
    return;
  }

  const long long spanA =
      operandSpan(g.transA ? g.k : g.m, g.transA ? g.m : g.k, g.lda, g.strideA, g.batch);
  const long long spanB =
      operandSpan(g.transB ? g.n : g.k, g.transB ? g.k : g.n, g.ldb, g.strideB, g.batch);
  Scratch a16(q, spanA * sizeof(__nv_bfloat16));
  Scratch b16(q, spanB * sizeof(__nv_bfloat16));
  toBf16Kernel<<<blocksFor(spanA), kThreads, 0, q.stream>>>(g.A, a16.as<__nv_bfloat16>(), spanA);
  checkLaunch("toBf16");
  toBf16Kernel<<<blocksFor(spanB), kThreads, 0, q.stream>>>(g.B, b16.as<__nv_bfloat16>(), spanB);
  checkLaunch("toBf16");
  if (g.batch == 1) {
    checkCublas(
        cublas().gemmEx(q.blas, op(g.transB), op(g.transA), g.n, g.m, g.k, &g.alpha, b16.as<void>(),
                        CUDA_R_16BF, g.ldb, a16.as<void>(), CUDA_R_16BF, g.lda, &g.beta, g.C,
                        CUDA_R_32F, g.ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx (bf16)");
  } else {
    checkCublas(cublas().gemmStridedBatchedEx(q.blas, op(g.transB), op(g.transA), g.n, g.m, g.k,
                                              &g.alpha, b16.as<void>(), CUDA_R_16BF, g.ldb,
                                              g.strideB, a16.as<void>(), CUDA_R_16BF, g.lda,
                                              g.strideA, &g.beta, g.C, CUDA_R_32F, g.ldc, g.strideC,
                                              g.batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                "cublasGemmStridedBatchedEx (bf16)");
  }
  // a16 and b16 go back to the cache here; the next user of those blocks is queued after the
  // GEMM on the same stream.
}

}  // namespace ps::kernels::cuda
