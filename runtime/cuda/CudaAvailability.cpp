#include <cuda_runtime.h>

#include <cstdlib>

#include "runtime/cuda/CudaBackend.h"

namespace ps::runtime {

CudaAvailability cudaAvailability() {
  // Each rank has a compute stream, a transfer stream and NCCL channel streams; with the default
  // 8 hardware queues per GPU, streams alias onto one queue and a send waiting for its receive
  // could stall an unrelated stream behind it. Read when the first context is made, so set here,
  // before any CUDA call (a user's own value wins).
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
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
