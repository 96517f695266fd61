// StreamWaits: the blocking and the polled waits of one CudaDevice (CudaWaits.h).
#include <chrono>
#include <string>
#include <thread>

#include "kernels/cuda/CudaCommon.cuh"
#include "kernels/cuda/CudaWaits.h"

namespace ps::kernels::cuda {

void StreamWaits::open(cudaStream_t stream) {
  stream_ = stream;
  checkCuda(cudaEventCreateWithFlags(&streamDone_, cudaEventDisableTiming), "cudaEventCreate");
}

void StreamWaits::close() noexcept {
  if (streamDone_) cudaEventDestroy(streamDone_);
  streamDone_ = nullptr;
  stream_ = nullptr;
}

void StreamWaits::waitForStream(const char* what) {
  if (!poll_) {
    checkCuda(cudaStreamSynchronize(stream_), what);
    return;
  }
  // One event of our own, re-recorded each time (a wait left behind by an abort is harmless).
  std::lock_guard<std::mutex> lock(mutex_);
  checkCuda(cudaEventRecord(streamDone_, stream_), what);
  waitForEvent(streamDone_, what);
}

void StreamWaits::waitForEvent(cudaEvent_t event, const char* what) {
  if (!poll_) {
    checkCuda(cudaEventSynchronize(event), what);
    return;
  }
  // Polling, so that a run whose peer died can stop (the poll aborts the NCCL communicators the
  // stream may be waiting on, or says the run is over).
  for (int spins = 0;; ++spins) {
    const cudaError_t rc = cudaEventQuery(event);
    if (rc == cudaSuccess) return;
    if (rc != cudaErrorNotReady) checkCuda(rc, what);
    if (poll_())
      throw DeviceError(std::string(what) + ": the run was aborted while the GPU was busy");
    std::this_thread::sleep_for(std::chrono::microseconds(spins < 100 ? 20 : 500));
  }
}

}  // namespace ps::kernels::cuda
