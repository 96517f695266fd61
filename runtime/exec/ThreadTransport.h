#pragma once
// The transport of rank threads: each rank owns a mailbox; the optimizer barrier is a
// StepBarrier; replicas sum their gradients in place through the shared stage models; an
// emulated link (bandwidth, latency) delays delivery.

#include "runtime/exec/Transport.h"

namespace ps::runtime {

struct ExecShared;

class ThreadTransport final : public Transport {
 public:
  explicit ThreadTransport(ExecShared& shared) : s_(shared) {}

  TransferStamps send(const MessageKey& key, int fromRank, int toRank, Tensor tensor) override;
  Result<Tensor> receive(const MessageKey& key, int fromRank, int toRank,
                         const std::shared_ptr<MemoryCounter>& memory) override;
  bool barrier(int rank) override;
  Status sumReplicaGradients(int rank, const RankStages& stages) override;
  void wakeAll() override;

 private:
  ExecShared& s_;
};

}  // namespace ps::runtime
