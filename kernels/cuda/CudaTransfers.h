#pragma once
// One CudaDevice's copies between the host and the device, in its stream's order: uploads of
// pageable memory staged through a ring of pinned buffers (never waiting for the stream),
// downloads (pageable ones through the ring too, so that their wait is polled), and readBack.
// The caller has made the device's context current.

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <mutex>

#include "kernels/cuda/CudaWaits.h"

namespace ps::kernels::cuda {

class HostTransfers {
 public:
  explicit HostTransfers(StreamWaits& waits) : waits_(waits) {}
  ~HostTransfers() { close(); }
  HostTransfers(const HostTransfers&) = delete;
  HostTransfers& operator=(const HostTransfers&) = delete;

  // Two steps, as StreamWaits: open() names the stream, close() gives the pinned slots back
  // (every copy out of them must have completed: the device synchronised its stream).
  void open(cudaStream_t stream) { stream_ = stream; }
  void close() noexcept;

  // ComputeDevice::upload and download (bytes > 0).
  void upload(void* dst, const void* hostSrc, std::size_t bytes);
  void download(void* hostDst, const void* src, std::size_t bytes);
  // CudaDevice::fixStaging: pins the ring once for transfers of up to `largest` bytes.
  void fixStaging(std::size_t largest);

 private:
  // One slot of the pinned ring that pageable uploads and downloads go through; `done` is
  // recorded after the copy out of it, and the slot is written again only once it completed.
  struct StagingSlot {
    void* host = nullptr;
    std::size_t capacity = 0;
    cudaEvent_t done = nullptr;
    bool pending = false;
  };
  static constexpr std::size_t kStagingSlots = 4;

  void uploadStaged(void* dst, const void* hostSrc, std::size_t bytes);
  void downloadStaged(void* hostDst, const void* src, std::size_t bytes);
  // The next slot of the ring with room for `bytes` (at most its fixed capacity once fixed), its
  // previous copy completed; null when no pinned memory can be had. Caller holds stagingMutex_.
  StagingSlot* stagingSlot(std::size_t bytes);

  StreamWaits& waits_;
  cudaStream_t stream_ = nullptr;
  std::mutex stagingMutex_;
  std::array<StagingSlot, kStagingSlots> staging_{};
  std::size_t nextSlot_ = 0;
  std::size_t stagingFixed_ = 0;  // the ring's capacity per slot once fixStaging ran; 0 before
};

// ComputeDevice::readBack (bytes > 0): a synchronous copy that does not queue behind the stream.
void readBack(void* hostDst, const void* src, std::size_t bytes);

}  // namespace ps::kernels::cuda
