#include "runtime/cuda/CudaTransport.h"

#include "runtime/cuda/CudaCheck.h"
#include "runtime/model/StageModel.h"

namespace ps::runtime {

namespace {

std::vector<const kernels::CudaDevice*> devicesOf(const std::vector<CudaRank>& ranks) {
  std::vector<const kernels::CudaDevice*> out;
  for (const CudaRank& r : ranks)
    out.push_back(r.device);
  return out;
}

}  // namespace

CudaTransport::CudaTransport(ExecShared& shared, std::vector<CudaRank> ranks)
    : s_(shared), ranks_(std::move(ranks)), inFlight_(ranks_.size()), barrier_(devicesOf(ranks_)) {}

CudaTransport::~CudaTransport() {
  for (std::size_t r = 0; r < ranks_.size(); ++r)
    releaseCopied(static_cast<int>(r), true);
  for (auto& [key, event] : delivered_)
    cudaEventDestroy(event);
}

cudaEvent_t CudaTransport::newEvent(const kernels::CudaDevice& device) {
  device.makeCurrent();  // the rank's context: its primary one, or its green context
  cudaEvent_t e = nullptr;
  cudaCheck(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  return e;
}

void CudaTransport::releaseCopied(int rank, bool wait) {
  auto& queue = inFlight_[rank];
  while (!queue.empty()) {
    InFlight& f = queue.front();
    if (wait) {
      cudaEventSynchronize(f.copied);
    } else if (cudaEventQuery(f.copied) != cudaSuccess) {
      cudaGetLastError();  // cudaErrorNotReady is not an error to keep
      return;
    }
    cudaEventDestroy(f.copied);
    queue.pop_front();  // the tensor goes back to the sender's allocator
  }
}

TransferStamps CudaTransport::send(const MessageKey& key, int fromRank, int toRank, Tensor tensor) {
  if (fromRank == toRank) {  // a hand-over on one rank: same stream, nothing to order
    s_.mailboxes[toRank]->put(key, std::move(tensor), Mailbox::Clock::now());
    return {};
  }
  releaseCopied(fromRank, false);
  const CudaRank& from = ranks_[fromRank];
  const CudaRank& to = ranks_[toRank];
  const int fromDevice = from.device->deviceIndex();
  const int toDevice = to.device->deviceIndex();

  // The receive buffer lives on the receiver, counted there. allocateFor orders the copy only
  // after the block's previous user there (never behind the receiver's whole queue).
  const auto bytes = static_cast<std::size_t>(tensor.bytes());
  Tensor received = Tensor::adopt(
      s_.rankMemory[toRank],
      static_cast<float*>(to.device->allocateFor(bytes, from.transferStream)), tensor.size());
  cudaEvent_t produced = newEvent(*from.device);
  cudaCheck(cudaEventRecord(produced, from.device->stream()), "cudaEventRecord");
  cudaCheck(cudaStreamWaitEvent(from.transferStream, produced, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(produced);  // released once the wait has consumed it

  TransferStamps stamps;
  stamps.start = from.clock ? from.clock->markOn(from.transferStream) : s_.nowNs();
  cudaCheck(cudaMemcpyPeerAsync(received.data(), toDevice, tensor.data(), fromDevice, bytes,
                                from.transferStream),
            "cudaMemcpyPeerAsync");
  stamps.end = from.clock ? from.clock->markOn(from.transferStream) : s_.nowNs();
  cudaEvent_t copied = newEvent(*from.device);
  cudaCheck(cudaEventRecord(copied, from.transferStream), "cudaEventRecord");
  inFlight_[fromRank].push_back({std::move(tensor), copied});

  cudaEvent_t delivered = newEvent(*from.device);
  cudaCheck(cudaEventRecord(delivered, from.transferStream), "cudaEventRecord");
  {
    std::lock_guard lock(mutex_);
    delivered_[{toRank, key}] = delivered;
  }
  s_.mailboxes[toRank]->put(key, std::move(received), Mailbox::Clock::now());
  return stamps;
}

Result<Tensor> CudaTransport::receive(const MessageKey& key, int fromRank, int toRank,
                                      const std::shared_ptr<MemoryCounter>&) {
  auto tensor = s_.mailboxes[toRank]->take(key, s_.abort);
  if (!tensor || fromRank == toRank) return tensor;
  cudaEvent_t delivered = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = delivered_.find({toRank, key});
    if (it == delivered_.end()) return Error{"internal: a received tensor has no copy event"};
    delivered = it->second;
    delivered_.erase(it);
  }
  // The compute stream waits for the copy; the host does not.
  const CudaRank& to = ranks_[toRank];
  cudaCheck(cudaStreamWaitEvent(to.device->stream(), delivered, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(delivered);
  return tensor;
}

bool CudaTransport::barrier(int rank) {
  return barrier_.arriveAndWait(rank, *s_.barrier, s_.abort);
}

Status CudaTransport::sumReplicaGradients(int rank, const RankStages& stages) {
  (void)rank;
  for (const auto& [model, twin] : s_.twinsHeldBy(stages)) {
    kernels::CudaDevice& mine = static_cast<kernels::CudaDevice&>(model->device());
    kernels::CudaDevice& theirs = static_cast<kernels::CudaDevice&>(twin->device());
    auto g0 = model->gradients();
    auto g1 = twin->gradients();
    // The twin's gradient into this device, summed here, the sum copied back (the barrier
    // before and after orders both streams around it).
    Tensor incoming = Tensor::uncounted(mine, g1.size());
    cudaCheck(cudaMemcpyPeerAsync(incoming.data(), mine.deviceIndex(), g1.data(),
                                  theirs.deviceIndex(), g1.size_bytes(), mine.stream()),
              "cudaMemcpyPeerAsync");
    mine.axpy(1.0f, incoming.data(), g0.data(), static_cast<long>(g0.size()));
    cudaCheck(cudaMemcpyPeerAsync(g1.data(), theirs.deviceIndex(), g0.data(), mine.deviceIndex(),
                                  g0.size_bytes(), mine.stream()),
              "cudaMemcpyPeerAsync");
  }
  return {};
}

void CudaTransport::wakeAll() {
  s_.wakeThreadWaiters();
}

}  // namespace ps::runtime
