#pragma once
// A barrier between rank threads that also orders their GPUs: after it, every rank's compute
// stream waits (cudaStreamWaitEvent, never the host) for the work every other rank issued
// before it. Two host phases, so that no rank records its event again before every other rank
// has queued its wait on the previous one. Shared by the cuda backend's in-process transports.

#include <cuda_runtime.h>

#include <atomic>
#include <vector>

#include "kernels/cuda/CudaDevice.h"
#include "runtime/exec/StepBarrier.h"

namespace ps::runtime {

class CudaDeviceBarrier {
 public:
  // Each rank's device (its compute stream and context).
  explicit CudaDeviceBarrier(std::vector<const kernels::CudaDevice*> devices);
  ~CudaDeviceBarrier();
  CudaDeviceBarrier(const CudaDeviceBarrier&) = delete;
  CudaDeviceBarrier& operator=(const CudaDeviceBarrier&) = delete;

  // False when the run aborted while waiting.
  bool arriveAndWait(int rank, StepBarrier& host, const std::atomic<bool>& abort);

 private:
  std::vector<const kernels::CudaDevice*> devices_;
  std::vector<cudaEvent_t> events_;
};

}  // namespace ps::runtime
