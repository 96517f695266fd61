#pragma once
// The few CUDA driver API functions PipeScope uses (green contexts for --sm-split, a stream's
// context), looked up at run time through the runtime's cudaGetDriverEntryPointByVersion instead
// of linking libcuda: a build must load on machines without an NVIDIA driver (CI, every dev
// machine), where libcuda.so.1 does not exist. A function the driver lacks is null.

#include <cuda.h>
#include <cuda_runtime.h>

#include <type_traits>

namespace ps::kernels::cuda {

struct DriverApi {
  CUresult (*getErrorName)(CUresult, const char**) = nullptr;
  CUresult (*deviceGet)(CUdevice*, int) = nullptr;
  CUresult (*deviceGetDevResource)(CUdevice, CUdevResource*, CUdevResourceType) = nullptr;
  CUresult (*devSmResourceSplitByCount)(CUdevResource*, unsigned int*, const CUdevResource*,
                                        CUdevResource*, unsigned int, unsigned int) = nullptr;
  CUresult (*devResourceGenerateDesc)(CUdevResourceDesc*, CUdevResource*, unsigned int) = nullptr;
  CUresult (*greenCtxCreate)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned int) = nullptr;
  CUresult (*greenCtxDestroy)(CUgreenCtx) = nullptr;
  CUresult (*greenCtxStreamCreate)(CUstream*, CUgreenCtx, unsigned int, int) = nullptr;
  CUresult (*greenCtxGetDevResource)(CUgreenCtx, CUdevResource*, CUdevResourceType) = nullptr;
  CUresult (*streamDestroy)(CUstream) = nullptr;
  CUresult (*streamGetCtx)(CUstream, CUcontext*) = nullptr;
  CUresult (*ctxGetCurrent)(CUcontext*) = nullptr;
  CUresult (*ctxSetCurrent)(CUcontext) = nullptr;
};

// Looked up once (thread-safe); every pointer null when there is no driver.
inline const DriverApi& driverApi() {
  static const DriverApi api = [] {
    DriverApi a;
    const auto get = [](const char* symbol, auto& fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult status{};
      // 12040: the ABI of CUDA 12.4, where green contexts appeared.
      if (cudaGetDriverEntryPointByVersion(symbol, &p, 12040, cudaEnableDefault, &status) ==
              cudaSuccess &&
          status == cudaDriverEntryPointSuccess)
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
      else
        cudaGetLastError();
    };
    get("cuGetErrorName", a.getErrorName);
    get("cuDeviceGet", a.deviceGet);
    get("cuDeviceGetDevResource", a.deviceGetDevResource);
    get("cuDevSmResourceSplitByCount", a.devSmResourceSplitByCount);
    get("cuDevResourceGenerateDesc", a.devResourceGenerateDesc);
    get("cuGreenCtxCreate", a.greenCtxCreate);
    get("cuGreenCtxDestroy", a.greenCtxDestroy);
    get("cuGreenCtxStreamCreate", a.greenCtxStreamCreate);
    get("cuGreenCtxGetDevResource", a.greenCtxGetDevResource);
    get("cuStreamDestroy", a.streamDestroy);
    get("cuStreamGetCtx", a.streamGetCtx);
    get("cuCtxGetCurrent", a.ctxGetCurrent);
    get("cuCtxSetCurrent", a.ctxSetCurrent);
    return a;
  }();
  return api;
}

}  // namespace ps::kernels::cuda
