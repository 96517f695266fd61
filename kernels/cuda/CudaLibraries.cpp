#include "kernels/cuda/CudaLibraries.h"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>
#include <type_traits>

#include "kernels/ComputeDevice.h"

#define PS_CUDA_STRINGIFY_(x) #x
// Expands its argument first: PS_CUDA_STRINGIFY(cublasCreate) is "cublasCreate_v2".
#define PS_CUDA_STRINGIFY(x) PS_CUDA_STRINGIFY_(x)

namespace ps::kernels::cuda {
namespace {

void* openLibrary(const char* soname, std::string& reason) {
  if (void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) return handle;
  reason = dlerror();
#ifdef PIPESCOPE_CUDA_LIBRARY_DIR
  // The toolkit's folder is often not on the loader's path (/usr/local/cuda/lib): where this
  // build found the libraries, they are most likely still.
  const std::string inToolkit = std::string(PIPESCOPE_CUDA_LIBRARY_DIR) + "/" + soname;
  if (void* handle = dlopen(inToolkit.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  reason += "; " + std::string(dlerror());
#endif
  return nullptr;
}

}  // namespace

void* cudaLibrarySymbol(const char* soname, const char* symbol) {
  // Handles stay open for the process's life: the functions looked up in them are kept.
  static std::mutex mutex;
  static std::map<std::string, void*> handles;
  void* handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = handles.find(soname);
    if (it == handles.end()) {
      std::string reason;
      handle = openLibrary(soname, reason);
      if (!handle)
        throw DeviceError(std::string("cannot open ") + soname + " (" + reason +
                          "): install it or add its folder to LD_LIBRARY_PATH");
      handles.emplace(soname, handle);
    } else {
      handle = it->second;
    }
  }
  dlerror();
  void* address = dlsym(handle, symbol);
  if (!address)
    throw DeviceError(std::string(soname) + " has no " + symbol +
                      ": it is older than the CUDA toolkit this build was made with");
  return address;
}

// The declared types must be the header's: a cast from an overload set picks the exact match or
// does not compile (unevaluated: no reference to the library's symbol).
static_assert(std::is_same_v<decltype(static_cast<CublasGemmEx*>(&::cublasGemmEx)), CublasGemmEx*>);
static_assert(std::is_same_v<
              decltype(static_cast<CublasGemmStridedBatchedEx*>(&::cublasGemmStridedBatchedEx)),
              CublasGemmStridedBatchedEx*>);

const CublasApi& cublas() {
  static const CublasApi api = [] {
    constexpr const char* kSoname = "libcublas.so." PS_CUDA_STRINGIFY(CUBLAS_VER_MAJOR);
    CublasApi a;
    loadCudaSymbol(a.create, kSoname, PS_CUDA_STRINGIFY(cublasCreate));
    loadCudaSymbol(a.destroy, kSoname, PS_CUDA_STRINGIFY(cublasDestroy));
    loadCudaSymbol(a.setStream, kSoname, PS_CUDA_STRINGIFY(cublasSetStream));
    loadCudaSymbol(a.setSmCountTarget, kSoname, PS_CUDA_STRINGIFY(cublasSetSmCountTarget));
    loadCudaSymbol(a.setWorkspace, kSoname, PS_CUDA_STRINGIFY(cublasSetWorkspace));
    loadCudaSymbol(a.setMathMode, kSoname, PS_CUDA_STRINGIFY(cublasSetMathMode));
    loadCudaSymbol(a.setAtomicsMode, kSoname, PS_CUDA_STRINGIFY(cublasSetAtomicsMode));
    loadCudaSymbol(a.setPointerMode, kSoname, PS_CUDA_STRINGIFY(cublasSetPointerMode));
    loadCudaSymbol(a.sgemm, kSoname, PS_CUDA_STRINGIFY(cublasSgemm));
    loadCudaSymbol(a.sgemmStridedBatched, kSoname, PS_CUDA_STRINGIFY(cublasSgemmStridedBatched));
    loadCudaSymbol(a.gemmEx, kSoname, PS_CUDA_STRINGIFY(cublasGemmEx));
    loadCudaSymbol(a.gemmStridedBatchedEx, kSoname, PS_CUDA_STRINGIFY(cublasGemmStridedBatchedEx));
    loadCudaSymbol(a.getStatusName, kSoname, PS_CUDA_STRINGIFY(cublasGetStatusName));
    loadCudaSymbol(a.getStatusString, kSoname, PS_CUDA_STRINGIFY(cublasGetStatusString));
    return a;
  }();
  return api;
}

}  // namespace ps::kernels::cuda
