#pragma once
// One CudaDevice's cuBLAS handle: bound to its stream, with a fixed workspace of its own, default
// math (no TF32), no atomics and host pointers, so its algorithm choice, and so its results,
// repeat from run to run. On a green context cuBLAS is told the share's SM count.

#include <cuda_runtime.h>

#include <cstddef>

struct cublasContext;  // cublasHandle_t is cublasContext*; callers need no cuBLAS header

namespace ps::kernels::cuda {

class BlasHandle {
 public:
  static constexpr std::size_t kWorkspaceBytes = 32u << 20;

  BlasHandle() = default;
  ~BlasHandle() { close(); }
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;

  // Two steps, as StreamWaits. open() runs with the device's context current (cuBLAS's own
  // resources belong to it); `smCount` 0 = the whole device. Throws DeviceError; what it made
  // before the throw is given back by close().
  void open(cudaStream_t stream, std::size_t smCount);
  void close() noexcept;

  cublasContext* handle() const { return blas_; }
  // The workspace's bytes once it is allocated, else 0.
  std::size_t reservedBytes() const { return workspace_ ? kWorkspaceBytes : 0; }

 private:
  cublasContext* blas_ = nullptr;
  void* workspace_ = nullptr;
};

}  // namespace ps::kernels::cuda
