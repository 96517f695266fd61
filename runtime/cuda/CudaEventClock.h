#pragma once
// A rank's OpClock on the cuda backend (DESIGN §3, "recording never on the hot path"): mark()
// records a CUDA event from a pool on the rank's stream and returns its slot as a token; the
// step's tokens are turned into host nanoseconds when the step is handed over, by elapsed times
// against the step's anchor event (EventTimeline), never by a synchronize per op. Each op's
// host-side issue is also an NVTX range PP:{stage}{KIND}{mb} in domain "pipescope" with the
// step as its payload (DESIGN §6), so an Nsight Systems capture imports back as the same ops.

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/cuda/CudaDevice.h"
#include "runtime/cuda/EventTimeline.h"
#include "runtime/exec/OpClock.h"

namespace ps::runtime {

class CudaEventClock final : public OpClock {
 public:
  // Records anchor 0 on `device`'s stream and waits for it once, pinning it to the host clock
  // (ns since `t0`). Events are made in the device's context. Throws kernels::DeviceError on a
  // CUDA error.
  CudaEventClock(const kernels::CudaDevice& device, std::chrono::steady_clock::time_point t0);
  ~CudaEventClock() override;
  CudaEventClock(const CudaEventClock&) = delete;
  CudaEventClock& operator=(const CudaEventClock&) = delete;

  std::int64_t mark() override { return markOn(stream_); }
  // A stamp on another stream of the same device (the transfer stream).
  std::int64_t markOn(cudaStream_t stream);
  Status resolve(trace::TraceBatch& batch) override;
  Status resolveWithin(trace::TraceBatch& batch, std::chrono::milliseconds within) override;
  void beginRange(OpKind kind, const Action& action) override;
  void endRange() override;

  std::size_t poolSize() const { return slots_.size(); }
  // Makes resolve() poll its events, asking `aborting` in between (see CudaWait.h).
  void setWaitPoll(std::function<bool()> aborting) { waitPoll_ = std::move(aborting); }

 private:
  struct Slot {
    cudaEvent_t event = nullptr;
    int anchor = 0;
    bool busy = false;
  };
  Result<std::int64_t> resolveToken(std::int64_t token);
  Status resolveAnchorsUpTo(int anchor);
  void releaseOldAnchors();

  const kernels::CudaDevice& device_;
  cudaStream_t stream_;
  std::vector<Slot> slots_;
  std::vector<int> free_;
  std::vector<cudaEvent_t> anchors_;  // one per step; anchors_[0] pinned to the host clock
  int firstLiveAnchor_ = 0;           // anchors before it are measured and their events freed
  bool anchorDue_ = false;            // the next mark() starts a new step: record an anchor
  EventTimeline timeline_;
  std::function<bool()> waitPoll_;
};

}  // namespace ps::runtime
