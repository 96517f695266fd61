#pragma once
// How tensors move between ranks of the cuda backend in one process (ranks are threads, each with
// its own CudaDevice: one stream for compute, one for transfers). A send is a device-to-device
// cudaMemcpyPeerAsync on the sender's transfer stream into a buffer allocated on the receiver,
// ordered by events both ways: the copy waits for the producing kernels and for the receive
// buffer's allocation, and the receiver's compute stream waits (cudaStreamWaitEvent) for the
// copy. The host never waits for a transfer. Works whether the ranks share one GPU or have one
// each (peer access is enabled where the GPUs allow it; otherwise the driver stages the copy).
// The per-message events come from a pool per sender (EventPool.h, SentCopies.h): a steady-state
// send creates and destroys none.

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cuda/CudaDevice.h"
#include "runtime/cuda/CudaDeviceBarrier.h"
#include "runtime/cuda/CudaEventClock.h"
#include "runtime/cuda/EventPool.h"
#include "runtime/cuda/SentCopies.h"
#include "runtime/exec/RankWorker.h"
#include "runtime/exec/Transport.h"

namespace ps::runtime {

// One rank's CUDA resources, owned by the executor.
struct CudaRank {
  kernels::CudaDevice* device = nullptr;
  cudaStream_t transferStream = nullptr;
  CudaEventClock* clock = nullptr;  // null when event timing is off
};

// The CUDA runtime behind EventPool and SentCopies for one sender: events are created in its
// context (made current first: a receive buffer's allocation may have switched it).
struct CudaEventApi {
  using Event = cudaEvent_t;
  using Stream = cudaStream_t;
  const kernels::CudaDevice* device = nullptr;
  bool create(Event* event);
  void destroy(Event event) noexcept;
  void record(Event event, Stream stream);
  void wait(Stream waiter, Event event);
  bool done(Event event);  // cudaEventQuery; not ready (or failed) is false
  void synchronize(Event event);
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
  using Pool = EventPool<CudaEventApi>;
  using Sent = SentCopies<CudaEventApi, Tensor>;  // sent tensors kept until their copy read them

  ExecShared& s_;
  std::vector<CudaRank> ranks_;
  std::vector<std::unique_ptr<Pool>> pools_;  // per sender (its events); before what holds them
  std::vector<std::unique_ptr<Sent>> sent_;   // per sender; touched by its thread only
  CudaDeviceBarrier barrier_;
  std::mutex mutex_;  // guards delivered_
  // (receiver, key) → the copy's event, from the sender's pool; the receiver gives it back.
  std::map<std::pair<int, MessageKey>, cudaEvent_t> delivered_;
};

}  // namespace ps::runtime
