#include "runtime/cuda/CudaNcclApi.h"

#include "kernels/cuda/CudaLibraries.h"

#define PS_NCCL_STRINGIFY_(x) #x
#define PS_NCCL_STRINGIFY(x) PS_NCCL_STRINGIFY_(x)

namespace ps::runtime {

const NcclApi& nccl() {
  static const NcclApi api = [] {
    using kernels::cuda::loadCudaSymbol;
    constexpr const char* kSoname = "libnccl.so." PS_NCCL_STRINGIFY(NCCL_MAJOR);
    NcclApi a;
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
