#pragma once
// How tensors move between ranks of the cuda backend in one process (ranks are threads, each with
// its own CudaDevice: one stream for compute, one for transfers). A send is a device-to-device
// cudaMemcpyPeerAsync on the sender's transfer stream into a buffer allocated on the receiver,
// ordered by events both ways: the copy waits for the producing kernels and for the receive
// buffer's allocation, and the receiver's compute stream waits (cudaStreamWaitEvent) for the
// copy. The host never waits for a transfer. Works whether the ranks share one GPU or have one
// each (peer access is enabled where the GPUs allow it; otherwise the driver stages the copy).

#include <cuda_runtime.h>

#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "kernels/cuda/CudaDevice.h"
#include "runtime/cuda/CudaDeviceBarrier.h"
#include "runtime/cuda/CudaEventClock.h"
#include "runtime/exec/RankWorker.h"
#include "runtime/exec/Transport.h"

namespace ps::runtime {

// One rank's CUDA resources, owned by the executor.
struct CudaRank {
  kernels::CudaDevice* device = nullptr;
  cudaStream_t transferStream = nullptr;
  CudaEventClock* clock = nullptr;  // null when event timing is off
};

class CudaTransport final : public Transport {
 public:
  CudaTransport(ExecShared& shared, std::vector<CudaRank> ranks);
  ~CudaTransport() override;

  TransferStamps send(const MessageKey& key, int fromRank, int toRank, Tensor tensor) override;
  Result<Tensor> receive(const MessageKey& key, int fromRank, int toRank,
                         const std::shared_ptr<MemoryCounter>& memory) override;
  // Host barrier plus a device barrier: afterwards every rank's compute stream waits for the
  // work every rank issued before it.
  bool barrier(int rank) override;
  Status sumReplicaGradients(int rank, const RankStages& stages) override;
  void wakeAll() override;

 private:
  struct InFlight {  // a sent tensor kept alive until its copy has read it
    Tensor tensor;
    cudaEvent_t copied = nullptr;
  };
  // Releases the rank's sent tensors whose copies finished (never waits).
  void releaseCopied(int rank, bool wait);
  cudaEvent_t newEvent(const kernels::CudaDevice& device);

  ExecShared& s_;
  std::vector<CudaRank> ranks_;
  std::vector<std::deque<InFlight>> inFlight_;  // per sender; touched by its thread only
  CudaDeviceBarrier barrier_;
  std::mutex mutex_;                                             // guards delivered_
  std::map<std::pair<int, MessageKey>, cudaEvent_t> delivered_;  // (receiver, key) → copy done
};

}  // namespace ps::runtime
