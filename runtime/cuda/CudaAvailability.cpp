#include <cuda_runtime.h>

#include "runtime/cuda/CudaBackend.h"

namespace ps::runtime {

CudaAvailability cudaAvailability() {
  CudaAvailability out;
  // Preset to 0: some drivers leave the count untouched on error.
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count <= 0) {
    out.reason = std::string("no CUDA device (") +
                 (rc != cudaSuccess ? cudaGetErrorString(rc) : "the driver reports 0 devices") +
                 ")";
    cudaGetLastError();  // clear it: later CUDA calls must not see a stale error
    return out;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    out.devices.push_back({i, prop.name, static_cast<std::int64_t>(prop.totalGlobalMem), prop.major,
                           prop.minor, prop.multiProcessorCount});
  }
  if (out.devices.empty()) out.reason = "no CUDA device (no device answered a properties query)";
  return out;
}

}  // namespace ps::runtime
