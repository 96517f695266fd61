#include "runtime/cuda/CudaNcclApi.h"

#include <string>

#include "kernels/ComputeDevice.h"
#include "kernels/cuda/CudaLibraries.h"
#include "runtime/cuda/NcclVersion.h"

#define PS_NCCL_STRINGIFY_(x) #x
#define PS_NCCL_STRINGIFY(x) PS_NCCL_STRINGIFY_(x)

namespace ps::runtime {

const NcclApi& nccl() {
  static const NcclApi api = [] {
    using kernels::cuda::loadCudaSymbol;
    constexpr const char* kSoname = "libnccl.so." PS_NCCL_STRINGIFY(NCCL_MAJOR);
    NcclApi a;
    loadCudaSymbol(a.getVersion, kSoname, "ncclGetVersion");
    int version = 0;
    if (a.getVersion(&version) != ncclSuccess)
      throw kernels::DeviceError(std::string(kSoname) + ": ncclGetVersion failed");
    if (const std::string problem = ncclVersionProblem(version, NCCL_VERSION_CODE, kSoname);
        !problem.empty())
      throw kernels::DeviceError(problem);
    loadCudaSymbol(a.getErrorString, kSoname, "ncclGetErrorString");
    loadCudaSymbol(a.getUniqueId, kSoname, "ncclGetUniqueId");
    loadCudaSymbol(a.commInitRank, kSoname, "ncclCommInitRank");
    loadCudaSymbol(a.commInitAll, kSoname, "ncclCommInitAll");
    loadCudaSymbol(a.commDestroy, kSoname, "ncclCommDestroy");
    loadCudaSymbol(a.commAbort, kSoname, "ncclCommAbort");
    loadCudaSymbol(a.groupStart, kSoname, "ncclGroupStart");
    loadCudaSymbol(a.groupEnd, kSoname, "ncclGroupEnd");
    loadCudaSymbol(a.send, kSoname, "ncclSend");
    loadCudaSymbol(a.recv, kSoname, "ncclRecv");
    loadCudaSymbol(a.allReduce, kSoname, "ncclAllReduce");
    return a;
  }();
  return api;
}

}  // namespace ps::runtime
