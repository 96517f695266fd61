#pragma once
// cuBLAS (and, through runtime/cuda/CudaNcclApi.h, NCCL) are opened on first use with dlopen
// instead of being linked. Linked, their start-up code ran in every process that merely could
// train on a GPU: libcublasLt's static constructors alone made `pipescope-cli --version` take
// 0.4 s instead of 0.1 s and hold 300 MB more, and each of the test suite's ~200 CLI starts paid
// it. Now only a process that trains on a GPU opens them, and one where they are missing says
// which library it could not open when it tries. The CUDA runtime is linked statically (it opens
// the driver itself, lazily), as the cuBLAS and NCCL libraries link theirs.

#include <cublas_v2.h>

#include <type_traits>

namespace ps::kernels::cuda {

// The address of `symbol` in the shared library `soname` (opened once per process, RTLD_LOCAL;
// by soname, then in the CUDA toolkit's library folder this build was made with). Throws
// DeviceError naming the library and the loader's reason when it cannot be opened, or the
// symbol when the library lacks it.
void* cudaLibrarySymbol(const char* soname, const char* symbol);

template <typename Fn>
void loadCudaSymbol(Fn*& fn, const char* soname, const char* symbol) {
  static_assert(std::is_function_v<Fn>);
  fn = reinterpret_cast<Fn*>(cudaLibrarySymbol(soname, symbol));
}

// The exported cuBLAS GEMMs with a compute type (C++ also sees an inline overload taking a
// cudaDataType, which decltype cannot pick from); CudaLibraries.cpp checks them against the header.
using CublasGemmEx = cublasStatus_t(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void*, const void*, cudaDataType, int, const void*,
                                    cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
using CublasGemmStridedBatchedEx = cublasStatus_t(cublasHandle_t, cublasOperation_t,
                                                  cublasOperation_t, int, int, int, const void*,
                                                  const void*, cudaDataType, int, long long,
                                                  const void*, cudaDataType, int, long long,
                                                  const void*, void*, cudaDataType, int, long long,
                                                  int, cublasComputeType_t, cublasGemmAlgo_t);

// The cuBLAS functions PipeScope calls. The header's macros (cublasCreate -> cublasCreate_v2)
// name the exported symbols, so the types and names cannot drift apart.
struct CublasApi {
  decltype(&::cublasCreate) create = nullptr;
  decltype(&::cublasDestroy) destroy = nullptr;
  decltype(&::cublasSetStream) setStream = nullptr;
  decltype(&::cublasSetSmCountTarget) setSmCountTarget = nullptr;
  decltype(&::cublasSetWorkspace) setWorkspace = nullptr;
  decltype(&::cublasSetMathMode) setMathMode = nullptr;
  decltype(&::cublasSetAtomicsMode) setAtomicsMode = nullptr;
  decltype(&::cublasSetPointerMode) setPointerMode = nullptr;
  decltype(&::cublasSgemm) sgemm = nullptr;
  decltype(&::cublasSgemmStridedBatched) sgemmStridedBatched = nullptr;
  CublasGemmEx* gemmEx = nullptr;
  CublasGemmStridedBatchedEx* gemmStridedBatchedEx = nullptr;
  decltype(&::cublasGetStatusName) getStatusName = nullptr;
  decltype(&::cublasGetStatusString) getStatusString = nullptr;
};

// Opened on the first call (thread-safe); throws DeviceError as cudaLibrarySymbol does, again on
// every call while the library stays unavailable.
const CublasApi& cublas();

}  // namespace ps::kernels::cuda
