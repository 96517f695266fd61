#include "runtime/cuda/CudaDeviceBarrier.h"

#include "runtime/cuda/CudaCheck.h"

namespace ps::runtime {

CudaDeviceBarrier::CudaDeviceBarrier(std::vector<const kernels::CudaDevice*> devices)
    : devices_(std::move(devices)) {
  for (const kernels::CudaDevice* d : devices_) {
    d->makeCurrent();
    cudaEvent_t e = nullptr;
    cudaCheck(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    events_.push_back(e);
  }
}

CudaDeviceBarrier::~CudaDeviceBarrier() {
  for (cudaEvent_t e : events_)
    cudaEventDestroy(e);
}

bool CudaDeviceBarrier::arriveAndWait(int rank, StepBarrier& host, const std::atomic<bool>& abort) {
  cudaStream_t mine = devices_[rank]->stream();
  cudaCheck(cudaEventRecord(events_[rank], mine), "cudaEventRecord");
  if (!host.arriveAndWait(abort)) return false;
  for (std::size_t r = 0; r < events_.size(); ++r)
    if (static_cast<int>(r) != rank)
      cudaCheck(cudaStreamWaitEvent(mine, events_[r], 0), "cudaStreamWaitEvent");
  return host.arriveAndWait(abort);
}

}  // namespace ps::runtime
