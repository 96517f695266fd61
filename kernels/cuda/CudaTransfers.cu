// HostTransfers (CudaTransfers.h): uploads staged through a ring of pinned buffers (never
// waiting for the stream), downloads, and readBack.
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/cuda/CudaCommon.cuh"
#include "kernels/cuda/CudaTransfers.h"

namespace ps::kernels::cuda {
namespace {

// Pageable uploads go through pinned slots of at most this size (larger ones in pieces), each
// grown to the next power of two at or above kStagingMin as needed: 4 slots pin at most 64 MiB.
constexpr std::size_t kStagingMax = 16u << 20;
constexpr std::size_t kStagingMin = 64u << 10;

std::size_t stagingCapacity(std::size_t bytes) {
  std::size_t capacity = kStagingMin;
  while (capacity < bytes)
    capacity *= 2;
  return capacity;
}

}  // namespace

void HostTransfers::upload(void* dst, const void* hostSrc, std::size_t bytes) {
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
  // we return: wait for the copy. Default: the driver reads where the source lives (unified
  // addressing); HostToDevice would be wrong for a device (or managed) source.
  checkCuda(cudaMemcpyAsync(dst, hostSrc, bytes, cudaMemcpyDefault, stream_),
            "cudaMemcpyAsync (pinned or device source)");
  waits_.waitForStream("upload");
}

HostTransfers::StagingSlot* HostTransfers::stagingSlot(std::size_t bytes) {
  StagingSlot& slot = staging_[nextSlot_];
  nextSlot_ = (nextSlot_ + 1) % kStagingSlots;
  if (slot.pending) {
    waits_.waitForEvent(slot.done, "staging slot");
    slot.pending = false;
  }
  if (!slot.done)
    checkCuda(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming),
              "cudaEventCreate (staging slot)");
  // Once fixed, a slot is never re-pinned while the run goes (cudaHostAlloc/cudaFreeHost may
  // synchronise the device, and NCCL kernels may be waiting on it): callers go in pieces.
  if (stagingFixed_ > 0) return slot.host ? &slot : nullptr;
  if (slot.capacity < bytes) {
    if (slot.host) cudaFreeHost(slot.host);  // its last copy has completed (waited above)
    slot.host = nullptr;
    slot.capacity = 0;
    const std::size_t capacity = stagingCapacity(bytes);
    // Portable: pinned for every context, green ones included.
    if (cudaHostAlloc(&slot.host, capacity, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      slot.host = nullptr;
      return nullptr;
    }
    slot.capacity = capacity;
  }
  return &slot;
}

void HostTransfers::fixStaging(std::size_t largest) {
  std::lock_guard<std::mutex> lock(stagingMutex_);
  stagingFixed_ = 0;
  const std::size_t capacity =
      stagingCapacity(std::min(std::max<std::size_t>(largest, 1), kStagingMax));
  for (std::size_t i = 0; i < kStagingSlots; ++i) {
    StagingSlot* slot = stagingSlot(capacity);  // waits for the slot's pending copy
    if (!slot) break;  // out of pinned memory: the driver stages (and may wait) instead
  }
  stagingFixed_ = capacity;
}

void HostTransfers::uploadStaged(void* dst, const void* hostSrc, std::size_t bytes) {
  // Pageable memory: the bytes are copied into a pinned slot of a ring here, and the DMA reads
  // the slot later, so the caller may reuse hostSrc at once and we neither wait for our stream
  // nor for the DMA. A slot is written again only after its previous copy completed (four
  // uploads ago: by then long done). Larger uploads go in slot-sized pieces.
  std::lock_guard<std::mutex> lock(stagingMutex_);
  const auto* from = static_cast<const char*>(hostSrc);
  auto* to = static_cast<char*>(dst);
  while (bytes > 0) {
    StagingSlot* slot = stagingSlot(std::min(bytes, kStagingMax));
    if (!slot) {
      // Out of pinned memory: the driver stages pageable memory itself (it may wait).
      checkCuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, stream_),
                "cudaMemcpyAsync (host to device)");
      return;
    }
    const std::size_t n = std::min(bytes, slot->capacity);
    std::memcpy(slot->host, from, n);
    checkCuda(cudaMemcpyAsync(to, slot->host, n, cudaMemcpyHostToDevice, stream_),
              "cudaMemcpyAsync (host to device)");
    checkCuda(cudaEventRecord(slot->done, stream_), "cudaEventRecord (staging slot)");
    slot->pending = true;
    from += n;
    to += n;
    bytes -= n;
  }
}

void HostTransfers::download(void* hostDst, const void* src, std::size_t bytes) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, hostDst) != cudaSuccess) {
    cudaGetLastError();
    attributes.type = cudaMemoryTypeUnregistered;
  }
  if (attributes.type == cudaMemoryTypeUnregistered) {
    downloadStaged(hostDst, src, bytes);
    return;
  }
  checkCuda(cudaMemcpyAsync(hostDst, src, bytes, cudaMemcpyDefault, stream_),
            "cudaMemcpyAsync (device to host)");
  waits_.waitForStream("download");
}

void HostTransfers::downloadStaged(void* hostDst, const void* src, std::size_t bytes) {
  // A copy into pageable memory blocks inside cudaMemcpyAsync until the stream drains, so a
  // stream stuck behind a dead NCCL peer would never let the abort be seen (issue 32 §5): copy
  // into a pinned slot, wait for it polling, then copy out on the host.
  std::lock_guard<std::mutex> lock(stagingMutex_);
  const auto* from = static_cast<const char*>(src);
  auto* to = static_cast<char*>(hostDst);
  while (bytes > 0) {
    StagingSlot* slot = stagingSlot(std::min(bytes, kStagingMax));
    if (!slot) {  // out of pinned memory: a copy the abort cannot interrupt, but a copy
      checkCuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToHost, stream_),
                "cudaMemcpyAsync (device to host)");
      waits_.waitForStream("download");
      return;
    }
    const std::size_t n = std::min(bytes, slot->capacity);
    checkCuda(cudaMemcpyAsync(slot->host, from, n, cudaMemcpyDeviceToHost, stream_),
              "cudaMemcpyAsync (device to host)");
    checkCuda(cudaEventRecord(slot->done, stream_), "cudaEventRecord (staging slot)");
    waits_.waitForEvent(slot->done, "download");
    std::memcpy(to, slot->host, n);
    from += n;
    to += n;
    bytes -= n;
  }
}

void HostTransfers::close() noexcept {
  std::lock_guard<std::mutex> lock(stagingMutex_);
  for (StagingSlot& slot : staging_) {
    if (slot.host) cudaFreeHost(slot.host);
    if (slot.done) cudaEventDestroy(slot.done);
    slot = StagingSlot{};
  }
}

void readBack(void* hostDst, const void* src, std::size_t bytes) {
  // A synchronous copy on the legacy default stream of our context. That stream waits for the
  // context's BLOCKING streams only, and ours is non-blocking (made so by CudaDevice; green-context
  // streams come from cuGreenCtxStreamCreate with CU_STREAM_NON_BLOCKING), as are the transfer
  // streams the runtime makes: so the copy does not queue behind our stream's work, and it
  // returns once the bytes are on the host. It is correct because the caller knows the writers
  // finished (an event after them completed): completed work's writes are visible to later
  // copies. (A caller-given blocking stream would only make it wait longer, never wrong.)
  checkCuda(cudaMemcpy(hostDst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (read back)");
}

}  // namespace ps::kernels::cuda
