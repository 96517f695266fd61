#include "kernels/cuda/DeviceQuery.h"

#include <cuda_runtime.h>

namespace ps::kernels::cuda {

Result<std::vector<DeviceInfo>> visibleDevices() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0)
    return Error{std::string("no CUDA device (") +
                 (rc != cudaSuccess ? cudaGetErrorString(rc) : "the driver reports 0 devices") +
                 ")"};
  std::vector<DeviceInfo> out;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    out.push_back(
        {i, prop.name, static_cast<long long>(prop.totalGlobalMem), prop.major, prop.minor});
  }
  return out;
}

}  // namespace ps::kernels::cuda
