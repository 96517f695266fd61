#include "runtime/exec/ThreadTransport.h"

#include <algorithm>
#include <cstring>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/exec/RankWorker.h"

namespace ps::runtime {

TransferStamps ThreadTransport::send(const MessageKey& key, int fromRank, int toRank,
                                     Tensor tensor) {
  const std::int64_t start = s_.nowNs();
  const std::int64_t bytes = tensor.bytes();
  auto deliverAt = std::chrono::steady_clock::now();
  std::int64_t occupy = 0;
  if (toRank != fromRank) {
    const auto& o = *s_.options;
    std::int64_t latency = static_cast<std::int64_t>(o.linkLatencyUs * 1e3);
    if (o.linkGbps && *o.linkGbps > 0) {
      // Bytes queue on the emulated link first come, first served.
      std::lock_guard lock(s_.mutex);
      std::int64_t& free = s_.linkFreeNs[fromRank][toRank];
      const std::int64_t begin = std::max(start, free);
      occupy = static_cast<std::int64_t>(static_cast<double>(bytes) * 8.0 / *o.linkGbps);
      free = begin + occupy;
      latency += free - start;
    }
    deliverAt += std::chrono::nanoseconds(latency);
  }
  s_.mailboxes[toRank]->put(key, std::move(tensor), deliverAt);
  return {start, start + occupy};
}

Result<Tensor> ThreadTransport::receive(const MessageKey& key, int fromRank, int toRank,
                                        const std::shared_ptr<MemoryCounter>& memory) {
  auto tensor = s_.mailboxes[toRank]->take(key, s_.abort);
  if (!tensor) return tensor;
  if (fromRank == toRank) return tensor;  // same rank: a hand-over, not a transfer
  // The bytes now live on this rank: copy into this rank's counted memory, as a real receive
  // buffer would hold them.
  Tensor local(memory, tensor->size());
  std::memcpy(local.data(), tensor->data(), tensor->bytes());
  return local;
}

bool ThreadTransport::barrier(int) {
  return s_.barrier->arriveAndWait(s_.abort);
}

Status ThreadTransport::sumReplicaGradients(int rank, const RankStages& stages) {
  (void)rank;
  // Replicas of a stage hold the same weights: exchange (sum) their gradients, as an all-reduce
  // between the copies would. The holder of replica 0 sums every copy into its own, in replica
  // order, then hands the sum to each (only once all are summed: more than two replicas).
  const auto pairs = s_.twinsHeldBy(stages);
  for (const auto& [model, twin] : pairs) {
    auto g0 = model->gradients();
    auto g1 = twin->gradients();
    model->device().axpy(1.0f, g1.data(), g0.data(), static_cast<long>(g0.size()));
  }
  for (const auto& [model, twin] : pairs) {
    auto g0 = model->gradients();
    model->device().copy(twin->gradients().data(), g0.data(), g0.size_bytes());
  }
  return {};
}

void ThreadTransport::wakeAll() {
  s_.wakeThreadWaiters();
}

}  // namespace ps::runtime
