#include "runtime/cuda/CudaDeviceBarrier.h"

#include "runtime/cuda/CudaCheck.h"

namespace ps::runtime {

CudaDeviceBarrier::CudaDeviceBarrier(std::vector<int> devices, std::vector<cudaStream_t> streams)
    : devices_(std::move(devices)), streams_(std::move(streams)) {
  for (int d : devices_) {
    cudaCheck(cudaSetDevice(d), "cudaSetDevice");
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
  cudaCheck(cudaSetDevice(devices_[rank]), "cudaSetDevice");
  cudaCheck(cudaEventRecord(events_[rank], streams_[rank]), "cudaEventRecord");
  if (!host.arriveAndWait(abort)) return false;
  for (std::size_t r = 0; r < events_.size(); ++r)
    if (static_cast<int>(r) != rank)
      cudaCheck(cudaStreamWaitEvent(streams_[rank], events_[r], 0), "cudaStreamWaitEvent");
  return host.arriveAndWait(abort);
}

}  // namespace ps::runtime
