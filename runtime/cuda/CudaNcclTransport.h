#pragma once
// How tensors move between ranks of the cuda backend when every rank has its own GPU: NCCL
// point-to-point over one two-rank communicator per ordered rank pair (a channel), in the one
// order both ends follow (CommOrder: the sender's program order). The sender posts each send in
// a group on its channel stream once the producing kernels are done (an event, not the host);
// the receiver, when its program needs message k of a channel, posts every receive of that
// channel up to k into buffers it allocates, and its compute stream waits for k's event. The
// host never waits for a transfer. Bidirectional plans sum twin gradients with ncclAllReduce on
// a communicator per twin pair; the step barrier is the event barrier of CudaDeviceBarrier.

#include <nccl.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "runtime/cuda/CommOrder.h"
#include "runtime/cuda/CudaDeviceBarrier.h"
#include "runtime/cuda/CudaTransport.h"

namespace ps::runtime {

class CudaNcclTransport final : public Transport {
 public:
  // In one process, ranks on distinct GPUs. `messageElems`: floats per message (B·S·H). Creates
  // and connects every channel (a one-float exchange each), so no connection is made mid-run.
  static Result<std::unique_ptr<CudaNcclTransport>> create(ExecShared& shared,
                                                           std::vector<CudaRank> ranks,
                                                           CommOrder order, long messageElems);
  // Across processes (mpirun): this process runs rank `self` of `ranks` only. `shareIds(n)`
  // returns n NCCL unique ids that are the same in every process (rank 0 makes them, the caller
  // broadcasts them over MPI). The step barrier is then an all-reduce of one float on a world
  // communicator: it orders the GPUs without the hosts.
  static Result<std::unique_ptr<CudaNcclTransport>> createForProcess(
      ExecShared& shared, int self, int ranks, CudaRank mine, CommOrder order, long messageElems,
      const std::function<std::vector<ncclUniqueId>(int count)>& shareIds);
  ~CudaNcclTransport() override;

  TransferStamps send(const MessageKey& key, int fromRank, int toRank, Tensor tensor) override;
  Result<Tensor> receive(const MessageKey& key, int fromRank, int toRank,
                         const std::shared_ptr<MemoryCounter>& memory) override;
  bool barrier(int rank) override;
  Status sumReplicaGradients(int rank, const RankStages& stages) override;
  // Also aborts every communicator, so GPU work waiting on a dead peer ends with an error.
  void wakeAll() override;

 private:
  struct Posted {
    Tensor tensor;
    cudaEvent_t arrived = nullptr;
  };
  struct Sent {
    Tensor tensor;
    cudaEvent_t done = nullptr;
  };
  // One ordered pair: the sender's end (touched by its thread only) and the receiver's end.
  struct Channel {
    ncclComm_t sendComm = nullptr, recvComm = nullptr;  // rank 0 = sender, 1 = receiver
    cudaStream_t sendStream = nullptr, recvStream = nullptr;
    std::deque<Sent> sent;
    int nextToPost = 0;
    std::map<int, Posted> posted;  // position → buffer awaiting its consumer
  };
  struct Twins {  // the two ranks holding copies of replicated stages
    int a = 0, b = 0;
    ncclComm_t commA = nullptr, commB = nullptr;
  };

  CudaNcclTransport(ExecShared& shared, std::vector<CudaRank> ranks, CommOrder order,
                    long messageElems);
  // The twin rank pairs of a bidirectional plan (ranks holding the two copies of a stage).
  void findTwins();
  // In one process: every communicator by ncclCommInitAll, the event barrier.
  void initInProcess();
  // In a process of an MPI job: this rank's communicators by ncclCommInitRank.
  void initForProcess(const std::vector<ncclUniqueId>& ids, int ranks);
  // A one-float exchange on every channel this process has an end of (NCCL connects lazily;
  // a connection made mid-run would wait for both hosts).
  void connectChannels();
  bool owns(int rank) const { return self_ < 0 || rank == self_; }
  void releaseSent(Channel& c, bool wait);

  ExecShared& s_;
  std::vector<CudaRank> ranks_;
  CommOrder order_;
  long messageElems_;
  std::map<std::pair<int, int>, Channel> channels_;
  std::vector<Twins> twins_;
  std::unique_ptr<CudaDeviceBarrier> barrier_;  // in one process
  int self_ = -1;                               // across processes: this process's rank
  ncclComm_t world_ = nullptr;                  // across processes: the barrier's communicator
  Tensor barrierFloat_;
  // Every NCCL call runs under a shared lock and checks aborted_; wakeAll takes the lock
  // exclusively before it aborts the communicators, so none is used while (or after) it is
  // freed.
  std::shared_mutex commsInUse_;
  bool aborted_ = false;
};

}  // namespace ps::runtime
