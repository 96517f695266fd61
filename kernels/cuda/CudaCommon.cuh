#pragma once
// What every kernels/cuda translation unit shares: status checks that throw DeviceError with the
// driver's words, launch geometry, and deterministic warp/block reductions (fixed shuffle
// trees, no atomics), so a reduction gives the same bits on every run.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>

#include "kernels/ComputeDevice.h"
#include "kernels/cuda/CudaLibraries.h"
#include "kernels/cuda/FormatBytes.h"

namespace ps::kernels::cuda {

// Throws "<what>: <cudaGetErrorString>" and clears the error so it does not resurface in the
// next unrelated check (sticky errors stay sticky: the driver keeps reporting them).
[[noreturn]] inline void throwCuda(cudaError_t rc, const std::string& what) {
  cudaGetLastError();
  throw DeviceError(what + ": " + cudaGetErrorString(rc));
}

// Checks build no string unless they fail: they sit on every call of the hot path.
inline void checkCuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throwCuda(rc, what);
}

// After every <<<>>>: a bad launch configuration is only reported through cudaGetLastError.
inline void checkLaunch(const char* kernel) {
  const cudaError_t rc = cudaGetLastError();
  if (rc != cudaSuccess) throwCuda(rc, std::string("launch of ") + kernel);
}

inline void checkCublas(cublasStatus_t rc, const char* what) {
  if (rc == CUBLAS_STATUS_SUCCESS) return;
  throw DeviceError(std::string(what) + ": " + cublas().getStatusName(rc) + " (" +
                    cublas().getStatusString(rc) + ")");
}

// Elementwise kernels use grid-stride loops over at most this many blocks of kThreads: enough
// to fill any current GPU, and a fixed grid keeps reductions in a fixed order.
constexpr int kThreads = 256;
constexpr long kMaxBlocks = 4096;

inline unsigned blocksFor(long n) {
  const long blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp(blocks, 1L, kMaxBlocks));
}

__device__ inline long globalIndex() {
  return static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline long gridStride() {
  return static_cast<long>(gridDim.x) * blockDim.x;
}

// Sum / max over the 32 lanes of a warp; every lane gets the result (butterfly: fixed order).
template <typename T>
__device__ inline T warpSum(T v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ inline float warpMax(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Sum over the whole block (blockDim.x a multiple of 32, at most 1024); every thread gets the
// result. `shared` holds 32 values; the trailing barrier lets the caller reuse it at once.
__device__ inline double blockSum(double v, double* shared) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warpSum(v);
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = static_cast<int>(blockDim.x >> 5);
    v = warpSum(lane < warps ? shared[lane] : 0.0);
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  const double total = shared[0];
  __syncthreads();
  return total;
}

// The caching allocator keeps blocks by size rounded to this (cudaMalloc aligns to at least 256
// bytes as well).
constexpr std::size_t kGranule = 256;
inline std::size_t roundUp(std::size_t bytes) {
  return (bytes + kGranule - 1) / kGranule * kGranule;
}

}  // namespace ps::kernels::cuda
