#pragma once
// What CUDA devices this process can use. Built only with PIPESCOPE_WITH_CUDA; callers without
// it report "built without CUDA".

#include <string>
#include <vector>

#include "trace/Result.h"

namespace ps::kernels::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  long long total_memory_bytes = 0;
  int sm_major = 0, sm_minor = 0;
};

// The visible devices; an error "no CUDA device (<driver message>)" when there is none.
Result<std::vector<DeviceInfo>> visibleDevices();

}  // namespace ps::kernels::cuda
