// Linear layer Y = X·Wᵀ + b on the GEMM wrapper (CudaGemm.cu), as kernels/cpu/Linear.cpp: the
// bias is added after the product (one rounding, as on the host), and its gradient is a
// deterministic column sum.

#include <algorithm>

#include "kernels/cuda/CudaLinear.cuh"

namespace ps::kernels::cuda {
namespace {

// Threads run along a row (coalesced) and keep their bias in a register; blocks stride over
// rows, so no per-element division.
__global__ void addBiasKernel(float* Y, const float* b, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const float bias = b[c];
  for (int r = blockIdx.y; r < rows; r += gridDim.y)
    Y[static_cast<long>(r) * cols + c] += bias;
}

}  // namespace

void linearForward(const CudaQueue& q, const float* X, const float* W, const float* b, float* Y,
                   int rows, int in, int out) {
  if (rows <= 0 || out <= 0) return;
  GemmCall g;
  g.transB = true;
  g.m = rows;
  g.n = out;
  g.k = in;
  g.A = X;
  g.lda = in;
  g.B = W;
  g.ldb = in;
  g.C = Y;
  g.ldc = out;
  gemm(q, g);
  if (b == nullptr) return;
  const unsigned tiles = static_cast<unsigned>((out + kThreads - 1) / kThreads);
  const unsigned rowBlocks = static_cast<unsigned>(
      std::clamp(kMaxBlocks / static_cast<long>(tiles), 1L, static_cast<long>(rows)));
  addBiasKernel<<<dim3(tiles, rowBlocks), kThreads, 0, q.stream>>>(Y, b, rows, out);
  checkLaunch("addBias");
}

void linearBackwardInput(const CudaQueue& q, const float* dY, const float* W, float* dX, int rows,
                         int in, int out, bool accumulate) {
  if (rows <= 0 || in <= 0) return;
  GemmCall g;  // dX = dY·W
  g.m = rows;
  g.n = in;
  g.k = out;
  g.A = dY;
  g.lda = out;
  g.B = W;
  g.ldb = in;
  g.beta = accumulate ? 1.0f : 0.0f;
  g.C = dX;
  g.ldc = in;
  gemm(q, g);
}

void linearBackwardWeight(const CudaQueue& q, const float* dY, const float* X, float* dW, float* db,
                          int rows, int in, int out) {
  if (rows <= 0 || out <= 0) return;
  GemmCall g;  // dW += dYᵀ·X
  g.transA = true;
  g.m = out;
  g.n = in;
  g.k = rows;
  g.A = dY;
  g.lda = out;
  g.B = X;
  g.ldb = in;
  g.beta = 1.0f;
  g.C = dW;
  g.ldc = in;
  gemm(q, g);
  if (db != nullptr) columnSums(q, dY, nullptr, nullptr, nullptr, nullptr, db, rows, out);
}

}  // namespace ps::kernels::cuda
