#pragma once
// What the kernel families of kernels/cuda (CudaGemm, CudaLinear, CudaAttention, CudaLayerNorm,
// CudaColumnSums, CudaElementwise, CudaLossOptim) issue their work with: one CudaDevice's stream,
// its cuBLAS handle and GEMM precision, and its block cache for scratch. They are free
// functions over it; the caller (CudaDevice) has made the device's context current.

#include <cstddef>

#include "kernels/ComputeDevice.h"
#include "kernels/cuda/BlockCache.h"
#include "kernels/cuda/CudaBlockApi.h"
#include "kernels/cuda/CudaCommon.cuh"

namespace ps::kernels::cuda {

struct CudaQueue {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  DType dtype = DType::Fp32;
  BlockCache<CudaBlockApi>* blocks = nullptr;
};

// Internal scratch from the caching allocator (not zeroed). Returning it right after the
// kernels that use it are issued is safe: the next user is ordered behind them on the stream.
class Scratch {
 public:
  Scratch(const CudaQueue& q, std::size_t bytes)
      : blocks_(*q.blocks), ptr_(blocks_.take(roundUp(bytes > 0 ? bytes : 1))) {}
  ~Scratch() {
    if (ptr_) blocks_.release(ptr_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  BlockCache<CudaBlockApi>& blocks_;
  void* ptr_;
};

}  // namespace ps::kernels::cuda
