#pragma once
// Turns a failed CUDA runtime call into kernels::DeviceError naming the call and the driver's
// message; the executor reports it as the failing op ("rank r: 1B3: cudaMemcpyAsync: ...").

#include <cuda_runtime.h>

#include <string>

#include "kernels/ComputeDevice.h"

namespace ps::runtime {

inline void cudaCheck(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  throw kernels::DeviceError(std::string(what) + ": " + cudaGetErrorString(rc));
}

}  // namespace ps::runtime
