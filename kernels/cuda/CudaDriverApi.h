#pragma once
// The few CUDA driver API functions PipeScope uses (green contexts for --sm-split, a stream's
// context), looked up at run time through the runtime's cudaGetDriverEntryPointByVersion instead
// of linking libcuda: a build must load on machines without an NVIDIA driver (CI, every dev
// machine), where libcuda.so.1 does not exist. A function the driver lacks is null.

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <type_traits>

namespace ps::kernels::cuda {

// Each function is looked up at the ABI version its cudaTypedefs.h typedef names
// (PFN_<symbol>_v<version>): asked for at a lower version than the one that introduced it, the
// driver answers "version not sufficient" and the pointer stays null (cuGreenCtxStreamCreate is
// 12050, not 12040 like the rest of the green-context API). The member's type is that typedef,
// so a version no typedef names does not compile; CudaDriverEntryPointsTest checks the table
// against the header too.
#define PS_CUDA_DRIVER_ENTRY_POINTS(X)                             \
  X(getErrorName, cuGetErrorName, 6000)                            \
  X(deviceGet, cuDeviceGet, 2000)                                  \
  X(deviceGetDevResource, cuDeviceGetDevResource, 12040)           \
  X(devSmResourceSplitByCount, cuDevSmResourceSplitByCount, 12040) \
  X(devResourceGenerateDesc, cuDevResourceGenerateDesc, 12040)     \
  X(greenCtxCreate, cuGreenCtxCreate, 12040)                       \
  X(greenCtxDestroy, cuGreenCtxDestroy, 12040)                     \
  X(greenCtxStreamCreate, cuGreenCtxStreamCreate, 12050)           \
  X(greenCtxGetDevResource, cuGreenCtxGetDevResource, 12040)       \
  X(ctxFromGreenCtx, cuCtxFromGreenCtx, 12040)                     \
  X(streamDestroy, cuStreamDestroy, 4000)                          \
  X(streamGetCtx, cuStreamGetCtx, 9020)                            \
  X(ctxGetCurrent, cuCtxGetCurrent, 4000)                          \
  X(ctxSetCurrent, cuCtxSetCurrent, 4000)

struct DriverApi {
#define PS_CUDA_DRIVER_MEMBER(member, symbol, version) PFN_##symbol##_v##version member = nullptr;
  PS_CUDA_DRIVER_ENTRY_POINTS(PS_CUDA_DRIVER_MEMBER)
#undef PS_CUDA_DRIVER_MEMBER
};

// The table as data: symbol and the version it is looked up at.
struct DriverEntryPoint {
  const char* symbol;
  int version;
};
inline constexpr DriverEntryPoint kDriverEntryPoints[] = {
#define PS_CUDA_DRIVER_ROW(member, symbol, version) {#symbol, version},
    PS_CUDA_DRIVER_ENTRY_POINTS(PS_CUDA_DRIVER_ROW)
#undef PS_CUDA_DRIVER_ROW
};

// Looked up once (thread-safe); every pointer null when there is no driver.
inline const DriverApi& driverApi() {
  static const DriverApi api = [] {
    DriverApi a;
    const auto get = [](const char* symbol, int version, auto& fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult status{};
      if (cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &status) ==
              cudaSuccess &&
          status == cudaDriverEntryPointSuccess)
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
      else
        cudaGetLastError();
    };
#define PS_CUDA_DRIVER_GET(member, symbol, version) get(#symbol, version, a.member);
    PS_CUDA_DRIVER_ENTRY_POINTS(PS_CUDA_DRIVER_GET)
#undef PS_CUDA_DRIVER_GET
    return a;
  }();
  return api;
}

}  // namespace ps::kernels::cuda
