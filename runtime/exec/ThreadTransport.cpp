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
  if (tensor->size() > 0) std::memcpy(local.data(), tensor->data(), tensor->bytes());
  return local;
}

bool ThreadTransport::barrier(int) {
  return s_.barrier->arriveAndWait(s_.abort);
}

Status ThreadTransport::sumReplicaGradients(int rank, const RankStages& stages) {
  (void)rank;
  // Replicas of a layer hold the same weights: exchange (sum) their gradients, as an all-reduce
  // between the copies would. The holder of replica 0's copy sums every copy into its own, in
  // replica order, then hands the sum to each (only once all are summed: more than two
  // replicas). By layers, so that replicas cut their own way (--own-cuts) sum the same layers.
  const auto slices = s_.replicaSlicesHeldBy(stages);
  for (const ReplicaSlice& slice : slices)
    slice.forEachShared([&](std::size_t at, std::size_t otherAt, std::size_t count) {
      slice.holder->device().axpy(1.0f, slice.other->gradients().data() + otherAt,
                                  slice.holder->gradients().data() + at, static_cast<long>(count));
    });
  for (const ReplicaSlice& slice : slices)
    slice.forEachShared([&](std::size_t at, std::size_t otherAt, std::size_t count) {
      slice.holder->device().copy(slice.other->gradients().data() + otherAt,
                                  slice.holder->gradients().data() + at, count * sizeof(float));
    });
  return {};
}

void ThreadTransport::wakeAll() {
  s_.wakeThreadWaiters();
}

}  // namespace ps::runtime
