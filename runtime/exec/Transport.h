#pragma once
// How one rank's tensors reach another: mailboxes between rank threads (ThreadTransport) or MPI
// point-to-point between processes (runtime/mpi/MpiTransport). RankWorker runs a rank's program
// the same way over either.

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "runtime/exec/Mailbox.h"
#include "runtime/model/MemoryCounter.h"
#include "runtime/model/Tensor.h"
#include "trace/Result.h"

namespace ps::runtime {

class StageModel;

// When a transfer occupied the sender, as stamps of the sender's OpClock (host ns for the host
// transports: [send call, + emulated link time]; events around the copy for the cuda one).
struct TransferStamps {
  std::int64_t start = 0;
  std::int64_t end = 0;
};

// A rank's stage models, keyed by (replica, stage).
using RankStages = std::map<std::pair<int, int>, std::unique_ptr<StageModel>>;

class Transport {
 public:
  virtual ~Transport() = default;

  // Sends `tensor` under `key` from `fromRank` to `toRank` (the same rank: a local hand-over).
  // Returns when the sender was busy with it (an instant without link emulation).
  virtual TransferStamps send(const MessageKey& key, int fromRank, int toRank, Tensor tensor) = 0;
  // Waits for `key` from `fromRank`. A tensor from another rank comes back counted by `memory`
  // (the receive buffer lives on the receiving rank). Errors when the run aborts while waiting.
  virtual Result<Tensor> receive(const MessageKey& key, int fromRank, int toRank,
                                 const std::shared_ptr<MemoryCounter>& memory) = 0;
  // Returns once every rank has arrived (`rank`: the caller); false when the run aborted while
  // waiting.
  virtual bool barrier(int rank) = 0;
  // Bidirectional plans: after it, both copies of every replicated stage that `rank` holds carry
  // the sum of the two copies' gradients (an all-reduce between the twins).
  virtual Status sumReplicaGradients(int rank, const RankStages& stages) = 0;
  // Whether a rank may call it from two threads (OpLanes), one call at a time; an error that
  // says why not.
  [[nodiscard]] virtual Status allowsLanes() const { return {}; }
  // Wakes every waiter (called after the abort flag was set).
  virtual void wakeAll() = 0;
};

}  // namespace ps::runtime
