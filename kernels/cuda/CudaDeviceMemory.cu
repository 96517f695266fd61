// CudaDevice's memory calls over its BlockCache (kernels/cuda/BlockCache.h, the rules and why),
// and CudaBlockApi: the CUDA runtime and driver calls the cache makes.
#include <string>

#include "kernels/cuda/CudaCommon.cuh"
#include "kernels/cuda/CudaDevice.h"
#include "kernels/cuda/CudaDriverApi.h"

namespace ps::kernels {

using cuda::checkCuda;
using cuda::driverApi;
using cuda::roundUp;

// The constructor made sure the driver has cuCtxGetCurrent/cuCtxSetCurrent.
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
  device->waitForEvent(event, "cudaMalloc retry");
}

void CudaBlockApi::destroyEvent(Event event) noexcept {
  cudaEventDestroy(event);
}

void* CudaDevice::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  makeCurrent();
  const std::size_t size = roundUp(bytes);
  void* p = blocks_->take(size);
  // Zeroed in stream order: a reused block is cleared only after its last user has run.
  const cudaError_t rc = cudaMemsetAsync(p, 0, size, stream_);
  if (rc != cudaSuccess) {
    release(p, bytes);
    checkCuda(rc, "cudaMemsetAsync");
  }
  return p;
}

void* CudaDevice::allocateFor(std::size_t bytes, cudaStream_t user) {
  if (bytes == 0) return nullptr;
  // No makeCurrent: the caller is usually another rank's thread, and this device's context may
  // be a green one, current on our own thread (issue 32 §2).
  return blocks_->takeFor(roundUp(bytes), user);
}

void CudaDevice::release(void* ptr, std::size_t) noexcept {
  // No cudaFree here (it would wait for the whole device): the block goes back to the cache
  // with an event recorded on our stream, in our context, which the cache makes current for the
  // call only (release must not change the caller's context).
  if (ptr && blocks_) blocks_->release(ptr);
}

}  // namespace ps::kernels
