// CudaBlockApi (CudaBlockApi.h): the CUDA runtime and driver calls of a CudaDevice's BlockCache.
#include <string>

#include "kernels/cuda/CudaBlockApi.h"
#include "kernels/cuda/CudaCommon.cuh"
#include "kernels/cuda/CudaDriverApi.h"

namespace ps::kernels {

using cuda::checkCuda;
using cuda::driverApi;

// CudaDevice's constructor made sure the driver has cuCtxGetCurrent/cuCtxSetCurrent.
CudaBlockApi::Context CudaBlockApi::current() {
  CUcontext context = nullptr;
  if (driverApi().ctxGetCurrent(&context) != CUDA_SUCCESS) return nullptr;
  return context;
}

bool CudaBlockApi::setCurrent(Context context) {
  return driverApi().ctxSetCurrent(context) == CUDA_SUCCESS;
}

bool CudaBlockApi::malloc(void** p, std::size_t bytes) {
  const cudaError_t rc = cudaMalloc(p, bytes);
  if (rc == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return false;
  }
  if (rc != cudaSuccess) cuda::throwCuda(rc, "cudaMalloc of " + cuda::formatBytes(bytes));
  return true;
}

void CudaBlockApi::free(void* p) noexcept {
  cudaFree(p);
}

bool CudaBlockApi::createEvent(Event* event) {
  if (cudaEventCreateWithFlags(event, cudaEventDisableTiming) == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

bool CudaBlockApi::record(Event event, Stream stream) {
  if (cudaEventRecord(event, stream) == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

void CudaBlockApi::wait(Stream waiter, Event event) {
  // The event may be of another context or device than `waiter`; the driver allows that.
  checkCuda(cudaStreamWaitEvent(waiter, event, 0),
            "cudaStreamWaitEvent (a reused block's release)");
}

void CudaBlockApi::waitFor(Event event) {
  waits->waitForEvent(event, "cudaMalloc retry");
}

void CudaBlockApi::destroyEvent(Event event) noexcept {
  cudaEventDestroy(event);
}

}  // namespace ps::kernels
