// Deterministic column sums over [rows×cols]: the bias gradients (db += Σ_rows dY) and layer
// norm's weight gradients (dgamma += Σ_rows dy·x̂, dbeta += Σ_rows dy). No float atomics: one
// thread per column adds a fixed run of rows in row order.
//
// Up to kChunkRows rows, one pass adds straight into the output, starting from its old value and
// going row by row: the very additions of kernels/cpu (bit for bit, up to x̂). Taller inputs are
// cut into chunks of rows whose partial sums land in scratch, then summed in chunk order.

#include <algorithm>

#include "kernels/cuda/CudaColumnSums.cuh"

namespace ps::kernels::cuda {
namespace {

constexpr int kChunkRows = 64;
constexpr int kMaxChunks = 65535;  // gridDim.y

// Sums rows [y·chunk, (y+1)·chunk) of column c. direct: add into out1/out2 (one chunk only);
// else write the partial sums to p1/p2 [chunks×cols].
__global__ void columnChunkKernel(const float* dy, const float* x, const float* mean,
                                  const float* rstd, float* out1, float* out2, int rows, int cols,
                                  int chunk, bool direct) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const int r0 = blockIdx.y * chunk;
  const int r1 = min(rows, r0 + chunk);
  const long slot = direct ? c : static_cast<long>(blockIdx.y) * cols + c;
  float s1 = direct && x ? out1[c] : 0.0f;
  float s2 = direct ? out2[c] : 0.0f;
  for (int r = r0; r < r1; ++r) {
    const long i = static_cast<long>(r) * cols + c;
    const float g = dy[i];
    if (x) s1 = __fadd_rn(s1, __fmul_rn(g, __fmul_rn(__fsub_rn(x[i], mean[r]), rstd[r])));
    s2 += g;
  }
  if (x) out1[slot] = s1;
  out2[slot] = s2;
}

__global__ void columnFinishKernel(const float* p1, const float* p2, float* out1, float* out2,
                                   int chunks, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s1 = 0.0f;
  float s2 = 0.0f;
  for (int k = 0; k < chunks; ++k) {
    const long i = static_cast<long>(k) * cols + c;
    if (p1) s1 += p1[i];
    s2 += p2[i];
  }
  if (out1) out1[c] += s1;
  out2[c] += s2;
}

}  // namespace

void columnSums(const CudaQueue& q, const float* dy, const float* x, const float* mean,
                const float* rstd, float* out1, float* out2, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const unsigned tiles = static_cast<unsigned>((cols + kThreads - 1) / kThreads);
  if (rows <= kChunkRows) {
    columnChunkKernel<<<dim3(tiles, 1), kThreads, 0, q.stream>>>(dy, x, mean, rstd, out1, out2,
                                                                 rows, cols, rows, true);
    checkLaunch("columnSums");
    return;
  }
  const int chunk = std::max(kChunkRows, (rows + kMaxChunks - 1) / kMaxChunks);
  const int chunks = (rows + chunk - 1) / chunk;
  const std::size_t partialBytes = static_cast<std::size_t>(chunks) * cols * sizeof(float);
  Scratch p1(q, x ? partialBytes : 1);
  Scratch p2(q, partialBytes);
  float* partial1 = x ? p1.as<float>() : nullptr;
  columnChunkKernel<<<dim3(tiles, chunks), kThreads, 0, q.stream>>>(
      dy, x, mean, rstd, partial1, p2.as<float>(), rows, cols, chunk, false);
  checkLaunch("columnSums (chunks)");
  columnFinishKernel<<<tiles, kThreads, 0, q.stream>>>(partial1, p2.as<float>(), out1, out2, chunks,
                                                       cols);
  checkLaunch("columnSums (finish)");
}

}  // namespace ps::kernels::cuda
