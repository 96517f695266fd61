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

bool CudaEventApi::create(Event* event) {
  device->makeCurrent();  // the sender's context: its primary one, or its green context
  return cudaEventCreateWithFlags(event, cudaEventDisableTiming) == cudaSuccess;
}

void CudaEventApi::destroy(Event event) noexcept {
  cudaEventDestroy(event);
}

void CudaEventApi::record(Event event, Stream stream) {
  cudaCheck(cudaEventRecord(event, stream), "cudaEventRecord");
}

void CudaEventApi::wait(Stream waiter, Event event) {
  cudaCheck(cudaStreamWaitEvent(waiter, event, 0), "cudaStreamWaitEvent");
}

bool CudaEventApi::done(Event event) {
  if (cudaEventQuery(event) == cudaSuccess) return true;
  cudaGetLastError();  // cudaErrorNotReady is not an error to keep
  return false;
}

void CudaEventApi::synchronize(Event event) {
  cudaEventSynchronize(event);
}

CudaTransport::CudaTransport(ExecShared& shared, std::vector<CudaRank> ranks)
    : s_(shared), ranks_(std::move(ranks)), barrier_(devicesOf(ranks_)) {
  for (const CudaRank& r : ranks_) {
    pools_.push_back(std::make_unique<Pool>(CudaEventApi{r.device}));
    sent_.push_back(std::make_unique<Sent>(*pools_.back()));
  }
}

CudaTransport::~CudaTransport() {
  for (auto& sent : sent_)
    sent->releaseAll();
  // Events never received (an aborted run) are destroyed with their pools.
}

TransferStamps CudaTransport::send(const MessageKey& key, int fromRank, int toRank, Tensor tensor) {
  if (fromRank == toRank) {  // a hand-over on one rank: same stream, nothing to order
    s_.mailboxes[toRank]->put(key, std::move(tensor), Mailbox::Clock::now());
    return {};
  }
  Sent& sent = *sent_[fromRank];
  sent.releaseCompleted();
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
  sent.orderAfter(from.transferStream, from.device->stream());

  TransferStamps stamps;
  stamps.start = from.clock ? from.clock->markOn(from.transferStream) : s_.nowNs();
  if (fromDevice == toDevice) {
    // Ranks sharing one GPU: a plain device-to-device copy (the peer path is for two GPUs).
    cudaCheck(cudaMemcpyAsync(received.data(), tensor.data(), bytes, cudaMemcpyDeviceToDevice,
                              from.transferStream),
              "cudaMemcpyAsync");
  } else {
    cudaCheck(cudaMemcpyPeerAsync(received.data(), toDevice, tensor.data(), fromDevice, bytes,
                                  from.transferStream),
              "cudaMemcpyPeerAsync");
  }
  stamps.end = from.clock ? from.clock->markOn(from.transferStream) : s_.nowNs();
  // One event: the sender frees `tensor` once it has completed, the receiver's stream waits on it.
  const cudaEvent_t copied = sent.copied(from.transferStream, std::move(tensor));
  {
    std::lock_guard lock(mutex_);
    delivered_[{toRank, key}] = copied;
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
  pools_[fromRank]->release(delivered);  // the queued wait keeps the record it saw
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
