// CudaDevice's caching allocator: exact-size free lists on plain cudaMalloc, reused in the
// device stream's order; each released block carries an event recorded at its release, so
// allocateFor can order another stream after exactly that point.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "kernels/cuda/CudaCommon.cuh"
#include "kernels/cuda/CudaDevice.h"
#include "kernels/cuda/CudaDriverApi.h"

namespace ps::kernels {
namespace {

using cuda::checkCuda;
using cuda::driverApi;
using cuda::roundUp;

// Idle release events kept beyond this many are destroyed (after freeCached, say).
constexpr std::size_t kMaxPooledEvents = 1024;

// Makes `context` current on this thread for the scope, then puts back what was current (for
// release(), which must not change the caller's context). Never throws.
class ContextScope {
 public:
  explicit ContextScope(CUcontext context) {
    const auto& api = driverApi();
    if (!context || !api.ctxGetCurrent || !api.ctxSetCurrent ||
        api.ctxGetCurrent(&previous_) != CUDA_SUCCESS || previous_ == context)
      return;
    switched_ = api.ctxSetCurrent(context) == CUDA_SUCCESS;
  }
  ~ContextScope() {
    if (switched_) driverApi().ctxSetCurrent(previous_);
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool switched_ = false;
};

}  // namespace

cudaError_t CudaDevice::takeEvent(cudaEvent_t* event) {
  if (!events_.empty()) {
    *event = events_.back();
    events_.pop_back();
    return cudaSuccess;
  }
  // Only until the pool covers the most blocks ever free at once: steady state creates none.
  return cudaEventCreateWithFlags(event, cudaEventDisableTiming);
}

void CudaDevice::recycleEvent(cudaEvent_t event) noexcept {
  if (!event) return;
  // Re-recording an event later is safe even if it is still pending: waits already queued on it
  // keep the record they saw.
  if (events_.size() < kMaxPooledEvents) {
    try {
      events_.push_back(event);
      return;
    } catch (...) {
      // Out of host memory for the pool: destroy it instead.
    }
  }
  cudaEventDestroy(event);
}

void* CudaDevice::obtain(std::size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      // The newest: warm in caches, and stream order makes its release point irrelevant.
      const FreeBlock block = it->second.back();
      it->second.pop_back();
      recycleEvent(block.released);
      return block.ptr;
    }
  }
  return fresh(bytes);
}

void* CudaDevice::fresh(std::size_t bytes) {
  void* p = nullptr;
  cudaError_t rc = cudaMalloc(&p, bytes);
  if (rc == cudaErrorMemoryAllocation) {
    // Cached blocks of other sizes may be what is missing: once nothing queued can still use
    // them (everything released was released in our stream's order), give them all back and
    // try once more. Polling, so that a run whose peer died can stop.
    cudaGetLastError();
    waitForStream("cudaMalloc retry");
    {
      std::lock_guard<std::mutex> lock(mutex_);
      freeCached();
    }
    rc = cudaMalloc(&p, bytes);
  }
  if (rc != cudaSuccess) cuda::throwCuda(rc, "cudaMalloc of " + cuda::formatBytes(bytes));
  std::lock_guard<std::mutex> lock(mutex_);
  blocks_.emplace(p, bytes);
  reserved_ += bytes;
  return p;
}

void CudaDevice::freeCached() {
  for (auto& entry : free_)
    for (const FreeBlock& block : entry.second) {
      cudaFree(block.ptr);
      blocks_.erase(block.ptr);
      reserved_ -= entry.first;
      recycleEvent(block.released);
    }
  free_.clear();
}

void* CudaDevice::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  makeCurrent();
  const std::size_t size = roundUp(bytes);
  void* p = obtain(size);
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
  makeCurrent();
  const std::size_t size = roundUp(bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = free_.find(size);
    if (it != free_.end()) {
      std::vector<FreeBlock>& list = it->second;
      // The oldest release with an event: the earliest point on our stream, most likely passed.
      const auto block = std::find_if(list.begin(), list.end(),
                                      [](const FreeBlock& b) { return b.released != nullptr; });
      if (block != list.end()) {
        // Under the lock: the event is not recycled (and re-recorded) before the wait is queued.
        // The event may be on another device than `user`; the driver allows that.
        checkCuda(cudaStreamWaitEvent(user, block->released, 0),
                  "cudaStreamWaitEvent (a reused block's release)");
        void* p = block->ptr;
        recycleEvent(block->released);
        list.erase(block);
        return p;
      }
    }
  }
  // Never used since cudaMalloc: nothing to wait for.
  return fresh(size);
}

void CudaDevice::release(void* ptr, std::size_t) noexcept {
  if (!ptr) return;
  // No cudaFree here (it would wait for the whole device): the block goes back to its size's
  // list, with an event recorded here on our stream. The next allocate() of that size, queued
  // behind today's users, takes it at once; allocateFor() makes its stream wait on the event.
  // Events belong to a context: ours is made current for this call only.
  const ContextScope scope(static_cast<CUcontext>(context_));
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = blocks_.find(ptr);
  if (it == blocks_.end()) return;  // not ours; nothing safe to do in a noexcept call
  cudaEvent_t released = nullptr;
  if (takeEvent(&released) != cudaSuccess) {
    released = nullptr;
  } else if (cudaEventRecord(released, stream_) != cudaSuccess) {
    cudaEventDestroy(released);
    released = nullptr;
  }
  if (!released) cudaGetLastError();  // the block stays usable in stream order (allocate only)
  try {
    free_[it->second].push_back({ptr, released});
  } catch (...) {
    // Out of host memory for the list: the block stays in blocks_ and is freed at the end.
    if (released) cudaEventDestroy(released);
  }
}

}  // namespace ps::kernels
