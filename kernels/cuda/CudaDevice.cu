// CudaDevice: opening the device (context, stream, cuBLAS), the caching allocator and the copies.
// The math lives in the other kernels/cuda/*.cu files, one per family of kernels.

#include <cublas_v2.h>

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

using cuda::checkCublas;
using cuda::checkCuda;
using cuda::driverApi;

// cuBLAS gets a fixed workspace of its own: with a fixed workspace and no atomics its algorithm
// choice, and so its results, repeat from run to run.
constexpr std::size_t kBlasWorkspaceBytes = 32u << 20;
// Blocks are kept by size rounded to this (cudaMalloc aligns to at least 256 bytes as well).
constexpr std::size_t kGranule = 256;

// Pageable uploads go through pinned slots of at most this size (larger ones in pieces), each
// grown to the next power of two at or above kStagingMin as needed: 4 slots pin at most 64 MiB.
constexpr std::size_t kStagingMax = 16u << 20;
constexpr std::size_t kStagingMin = 64u << 10;
// Idle release events kept beyond this many are destroyed (after freeCached, say).
constexpr std::size_t kMaxPooledEvents = 1024;

std::size_t roundUp(std::size_t bytes) {
  return (bytes + kGranule - 1) / kGranule * kGranule;
}

std::size_t stagingCapacity(std::size_t bytes) {
  std::size_t capacity = kStagingMin;
  while (capacity < bytes)
    capacity *= 2;
  return capacity;
}

// Driver API calls go through kernels/cuda/CudaDriverApi.h (looked up at run time, no libcuda
// link), so that binaries load on machines without a driver; there the constructor has already
// thrown "no CUDA device" before any of them is needed.
void checkDriver(CUresult rc, const char* what) {
  if (rc == CUDA_SUCCESS) return;
  const char* name = nullptr;
  if (const auto& api = driverApi(); api.getErrorName) api.getErrorName(rc, &name);
  throw DeviceError(std::string(what) + ": " +
                    (name ? name : "driver error " + std::to_string(static_cast<int>(rc))));
}

// cuStreamGetCtx of the CUDA 12.5 ABI (cuStreamGetCtx_v2): also names the stream's green context.
// Not in DriverApi; null when the driver is older (then smCount() stays 0).
using StreamGetCtxV2 = CUresult (*)(CUstream, CUcontext*, CUgreenCtx*);
StreamGetCtxV2 streamGetCtxV2() {
  static const StreamGetCtxV2 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuStreamGetCtx", &p, 12050, cudaEnableDefault, &status) ==
            cudaSuccess &&
        status == cudaDriverEntryPointSuccess)
      return reinterpret_cast<StreamGetCtxV2>(p);
    cudaGetLastError();
    return StreamGetCtxV2{};
  }();
  return fn;
}

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

CudaDevice::CudaDevice(int deviceIndex, DType dtype, cudaStream_t stream)
    : device_(deviceIndex), dtype_(dtype), stream_(stream), ownsStream_(stream == nullptr) {
  try {
    int count = 0;  // preset: some drivers leave it untouched on error
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
      cudaGetLastError();
      throw DeviceError(std::string("no CUDA device (") + cudaGetErrorString(rc) + ")");
    }
    if (deviceIndex < 0 || deviceIndex >= count)
      throw DeviceError("no CUDA device " + std::to_string(deviceIndex) + " (" +
                        std::to_string(count) + " visible)");
    // Makes the primary context current (and creates it): our own stream is made in it.
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    // Non-blocking: the legacy default stream of other libraries must not serialise with ours
    // (and readBack, which runs on it, must not wait for our queue).
    if (ownsStream_)
      checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    // The device works in its stream's context: the primary one, or for a stream made by
    // cuGreenCtxStreamCreate the context converted from that green context (cuStreamGetCtx
    // returns that one), so that our kernels and cuBLAS's run on the green context's SMs.
    const auto& api = driverApi();
    if (!api.streamGetCtx || !api.ctxGetCurrent || !api.ctxSetCurrent)
      throw DeviceError("the CUDA driver lacks cuStreamGetCtx/cuCtxGetCurrent/cuCtxSetCurrent");
    CUcontext context = nullptr;
    checkDriver(api.streamGetCtx(reinterpret_cast<CUstream>(stream_), &context), "cuStreamGetCtx");
    context_ = context;
    makeCurrent();
    int owner = -1;
    checkCuda(cudaGetDevice(&owner), "cudaGetDevice");
    if (owner != device_)
      throw DeviceError("the stream given for CUDA device " + std::to_string(device_) +
                        " belongs to device " + std::to_string(owner));
    if (const StreamGetCtxV2 getCtx = streamGetCtxV2(); getCtx && api.greenCtxGetDevResource) {
      CUcontext primary = nullptr;
      CUgreenCtx green = nullptr;
      checkDriver(getCtx(reinterpret_cast<CUstream>(stream_), &primary, &green),
                  "cuStreamGetCtx_v2");
      if (green) {
        CUdevResource sms{};
        checkDriver(api.greenCtxGetDevResource(green, &sms, CU_DEV_RESOURCE_TYPE_SM),
                    "cuGreenCtxGetDevResource");
        smCount_ = sms.sm.smCount;
      }
    }
    cudaDeviceProp prop{};
    checkCuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    name_ = prop.name;
    // Created with the device's context current: cuBLAS's own resources belong to it.
    cublasHandle_t handle = nullptr;
    checkCublas(cublasCreate(&handle), "cublasCreate");
    blas_ = handle;
    checkCublas(cublasSetStream(blas_, stream_), "cublasSetStream");
    // cuBLAS picks its kernels' grid sizes for the SMs it believes it has: on a green context,
    // the share's, so that it does not size work for SMs it cannot get.
    if (smCount_ > 0)
      checkCublas(cublasSetSmCountTarget(blas_, static_cast<int>(smCount_)),
                  "cublasSetSmCountTarget");
    checkCuda(cudaMalloc(&blasWorkspace_, kBlasWorkspaceBytes),
              "cudaMalloc of the cuBLAS workspace");
    reserved_ = kBlasWorkspaceBytes;
    checkCublas(cublasSetWorkspace(blas_, blasWorkspace_, kBlasWorkspaceBytes),
                "cublasSetWorkspace");
    // Fp32 is the reference path: default math never uses TF32 (only CUBLAS_TF32_TENSOR_OP_MATH
    // or a compute type that asks for it would). Bf16 asks for tensor cores by its input type.
    checkCublas(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    checkCublas(cublasSetAtomicsMode(blas_, CUBLAS_ATOMICS_NOT_ALLOWED), "cublasSetAtomicsMode");
    checkCublas(cublasSetPointerMode(blas_, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
  } catch (...) {
    destroy();
    throw;
  }
}

CudaDevice::~CudaDevice() {
  destroy();
}

void CudaDevice::destroy() noexcept {
  const auto& api = driverApi();
  if (context_ && api.ctxSetCurrent)
    api.ctxSetCurrent(static_cast<CUcontext>(context_));
  else
    cudaSetDevice(device_);
  // Everything queued may still read our blocks and staging slots: wait before giving them back.
  if (stream_) cudaStreamSynchronize(stream_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& block : blocks_)
      cudaFree(block.first);
    for (const auto& entry : free_)
      for (const FreeBlock& block : entry.second)
        if (block.released) cudaEventDestroy(block.released);
    for (cudaEvent_t event : events_)
      cudaEventDestroy(event);
    blocks_.clear();
    free_.clear();
    events_.clear();
    reserved_ = 0;
  }
  {
    std::lock_guard<std::mutex> lock(stagingMutex_);
    for (StagingSlot& slot : staging_) {
      if (slot.host) cudaFreeHost(slot.host);
      if (slot.done) cudaEventDestroy(slot.done);
      slot = StagingSlot{};
    }
  }
  if (blas_) cublasDestroy(blas_);
  if (blasWorkspace_) cudaFree(blasWorkspace_);
  if (stream_ && ownsStream_) cudaStreamDestroy(stream_);
  blas_ = nullptr;
  blasWorkspace_ = nullptr;
  stream_ = nullptr;
  // A green context is its owner's to destroy, perhaps right after us: leave the device's
  // primary context current on this thread rather than one that may soon dangle.
  CUcontext current = nullptr;
  if (smCount_ > 0 && api.ctxGetCurrent && api.ctxGetCurrent(&current) == CUDA_SUCCESS &&
      current == context_)
    cudaSetDevice(device_);
  cudaGetLastError();  // a destructor reports nothing; leave no stale error behind
}

void CudaDevice::makeCurrent() const {
  // cuCtxGetCurrent is a thread-local read; a switch only when another context is current
  // (another rank's GPU, or the primary context after someone's cudaSetDevice).
  CUcontext current = nullptr;
  if (context_) {  // the constructor made sure the driver has both functions
    const auto& api = driverApi();
    if (api.ctxGetCurrent(&current) == CUDA_SUCCESS && current == context_) return;
    const CUresult rc = api.ctxSetCurrent(static_cast<CUcontext>(context_));
    if (rc != CUDA_SUCCESS)
      checkDriver(rc, ("cuCtxSetCurrent (CUDA device " + std::to_string(device_) + ")").c_str());
    return;
  }
  // Only while the constructor has no context yet.
  int device = -1;
  if (cudaGetDevice(&device) == cudaSuccess && device == device_) return;
  const cudaError_t rc = cudaSetDevice(device_);
  if (rc != cudaSuccess) cuda::throwCuda(rc, "cudaSetDevice(" + std::to_string(device_) + ")");
}

std::size_t CudaDevice::reservedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reserved_;
}

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

void CudaDevice::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  makeCurrent();
  checkCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_),
            "cudaMemcpyAsync (device to device)");
}

void CudaDevice::upload(void* dst, const void* hostSrc, std::size_t bytes) {
  if (bytes == 0) return;
  makeCurrent();
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, hostSrc) != cudaSuccess) {
    cudaGetLastError();
    attributes.type = cudaMemoryTypeUnregistered;
  }
  if (attributes.type == cudaMemoryTypeUnregistered) {
    uploadStaged(dst, hostSrc, bytes);
    return;
  }
  // Pinned (or device) memory is read by the DMA later, and the caller may reuse it as soon as
  // we return: wait for the copy.
  checkCuda(cudaMemcpyAsync(dst, hostSrc, bytes, cudaMemcpyHostToDevice, stream_),
            "cudaMemcpyAsync (host to device)");
  waitForStream("upload");
}

void CudaDevice::uploadStaged(void* dst, const void* hostSrc, std::size_t bytes) {
  // Pageable memory: the bytes are copied into a pinned slot of a ring here, and the DMA reads
  // the slot later, so the caller may reuse hostSrc at once and we neither wait for our stream
  // nor for the DMA. A slot is written again only after its previous copy completed (four
  // uploads ago: by then long done). Larger uploads go in slot-sized pieces.
  std::lock_guard<std::mutex> lock(stagingMutex_);
  const auto* from = static_cast<const char*>(hostSrc);
  auto* to = static_cast<char*>(dst);
  while (bytes > 0) {
    const std::size_t n = std::min(bytes, kStagingMax);
    StagingSlot& slot = staging_[nextSlot_];
    nextSlot_ = (nextSlot_ + 1) % kStagingSlots;
    if (slot.pending) {
      waitForEvent(slot.done, "upload (staging slot)");
      slot.pending = false;
    }
    if (!slot.done)
      checkCuda(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming),
                "cudaEventCreate (staging slot)");
    if (slot.capacity < n) {
      if (slot.host) cudaFreeHost(slot.host);  // its last copy has completed (waited above)
      slot.host = nullptr;
      slot.capacity = 0;
      const std::size_t capacity = stagingCapacity(n);
      // Portable: pinned for every context, green ones included.
      if (cudaHostAlloc(&slot.host, capacity, cudaHostAllocPortable) != cudaSuccess) {
        // Out of pinned memory: the driver stages pageable memory itself (it may wait).
        cudaGetLastError();
        slot.host = nullptr;
        checkCuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, stream_),
                  "cudaMemcpyAsync (host to device)");
        return;
      }
      slot.capacity = capacity;
    }
    std::memcpy(slot.host, from, n);
    checkCuda(cudaMemcpyAsync(to, slot.host, n, cudaMemcpyHostToDevice, stream_),
              "cudaMemcpyAsync (host to device)");
    checkCuda(cudaEventRecord(slot.done, stream_), "cudaEventRecord (staging slot)");
    slot.pending = true;
    from += n;
    to += n;
    bytes -= n;
  }
}

void CudaDevice::download(void* hostDst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  makeCurrent();
  checkCuda(cudaMemcpyAsync(hostDst, src, bytes, cudaMemcpyDeviceToHost, stream_),
            "cudaMemcpyAsync (device to host)");
  waitForStream("download");
}

void CudaDevice::readBack(void* hostDst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  makeCurrent();
  // A synchronous copy on the legacy default stream of our context. That stream waits for the
  // context's BLOCKING streams only, and ours is non-blocking (made so above; green-context
  // streams come from cuGreenCtxStreamCreate with CU_STREAM_NON_BLOCKING), as are the transfer
  // streams the runtime makes: so the copy does not queue behind our stream's work, and it
  // returns once the bytes are on the host. It is correct because the caller knows the writers
  // finished (an event after them completed): completed work's writes are visible to later
  // copies. (A caller-given blocking stream would only make it wait longer, never wrong.)
  checkCuda(cudaMemcpy(hostDst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (read back)");
}

void CudaDevice::synchronize() {
  makeCurrent();
  waitForStream("synchronize");
}

void CudaDevice::waitForStream(const char* what) {
  if (!waitPoll_) {
    checkCuda(cudaStreamSynchronize(stream_), what);
    return;
  }
  cudaEvent_t done = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    checkCuda(takeEvent(&done), what);
  }
  try {
    checkCuda(cudaEventRecord(done, stream_), what);
    waitForEvent(done, what);
  } catch (...) {
    cudaEventDestroy(done);  // perhaps still pending on a stuck stream: not back to the pool
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  recycleEvent(done);
}

void CudaDevice::waitForEvent(cudaEvent_t event, const char* what) {
  if (!waitPoll_) {
    checkCuda(cudaEventSynchronize(event), what);
    return;
  }
  // Polling, so that a run whose peer died can stop (the poll aborts the NCCL communicators the
  // stream may be waiting on, or says the run is over).
  for (int spins = 0;; ++spins) {
    const cudaError_t rc = cudaEventQuery(event);
    if (rc == cudaSuccess) return;
    if (rc != cudaErrorNotReady) checkCuda(rc, what);
    if (waitPoll_())
      throw DeviceError(std::string(what) + ": the run was aborted while the GPU was busy");
    std::this_thread::sleep_for(std::chrono::microseconds(spins < 100 ? 20 : 500));
  }
}

CudaDevice::Scratch::Scratch(CudaDevice& device, std::size_t bytes)
    : device_(device), ptr_(device.obtain(roundUp(bytes > 0 ? bytes : 1))), bytes_(bytes) {}

CudaDevice::Scratch::~Scratch() {
  device_.release(ptr_, bytes_);
}

}  // namespace ps::kernels
