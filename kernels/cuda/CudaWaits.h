#pragma once
// How one CudaDevice waits, for everything queued on its stream or for one event: a plain
// synchronize, or, once a poll is set, a polled wait that throws DeviceError when the poll says
// the run aborted (a GPU stuck behind a dead peer must not hold its thread forever). The device
// (downloads, synchronize, pinned uploads), its staging ring and its block cache's
// out-of-memory retry all wait through here.

#include <cuda_runtime.h>

#include <functional>
#include <mutex>
#include <utility>

namespace ps::kernels::cuda {

class StreamWaits {
 public:
  StreamWaits() = default;
  ~StreamWaits() { close(); }
  StreamWaits(const StreamWaits&) = delete;
  StreamWaits& operator=(const StreamWaits&) = delete;

  // Two steps, so that CudaDevice opens and closes its parts in one fixed order: open() creates
  // the event a polled stream wait records (throws DeviceError), close() destroys it.
  void open(cudaStream_t stream);
  void close() noexcept;
  // `aborting` is called between polls; set before the device is shared between threads.
  void setPoll(std::function<bool()> aborting) { poll_ = std::move(aborting); }

  // Waits for everything queued so far / for one event; polls with the poll when it is set.
  void waitForStream(const char* what);
  void waitForEvent(cudaEvent_t event, const char* what);

 private:
  cudaStream_t stream_ = nullptr;
  std::mutex mutex_;                  // guards streamDone_
  cudaEvent_t streamDone_ = nullptr;  // recorded by the polled waitForStream
  std::function<bool()> poll_;
};

}  // namespace ps::kernels::cuda
