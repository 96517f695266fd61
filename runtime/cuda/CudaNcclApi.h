#pragma once
// The NCCL functions PipeScope calls, from libnccl opened on first use (see
// kernels/cuda/CudaLibraries.h for why it is not linked).

#include <nccl.h>

namespace ps::runtime {

struct NcclApi {
  decltype(&::ncclGetVersion) getVersion = nullptr;
  decltype(&::ncclGetErrorString) getErrorString = nullptr;
  decltype(&::ncclGetUniqueId) getUniqueId = nullptr;
  decltype(&::ncclCommInitRank) commInitRank = nullptr;
  decltype(&::ncclCommInitAll) commInitAll = nullptr;
  decltype(&::ncclCommDestroy) commDestroy = nullptr;
  decltype(&::ncclCommAbort) commAbort = nullptr;
  decltype(&::ncclGroupStart) groupStart = nullptr;
  decltype(&::ncclGroupEnd) groupEnd = nullptr;
  decltype(&::ncclSend) send = nullptr;
  decltype(&::ncclRecv) recv = nullptr;
  decltype(&::ncclAllReduce) allReduce = nullptr;
};

// Opened on the first call (thread-safe). Throws kernels::DeviceError naming libnccl and the
// loader's reason while it cannot be opened, or both versions when the library is older than
// the nccl.h we were built with (NcclVersion.h).
const NcclApi& nccl();

}  // namespace ps::runtime
