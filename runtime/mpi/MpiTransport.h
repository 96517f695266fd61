#pragma once
// The transport of rank processes (MPI backend): tensors move with MPI point-to-point, the
// optimizer barrier is an MPI barrier, bidirectional replicas exchange gradients with their twin
// process. Every wait polls — the request, a control channel on which a failing or cancelled
// rank tells the others, and the cancel flag — so a rank that fails ends the run, never hangs it.
//
// Messages never carry their key: the MPI tag encodes it (direction, replica, stage, producing
// stage, micro-batch), and MPI's non-overtaking order between two processes keeps the same key
// of different steps apart. With an emulated link the sender also sends, under the same tag on a
// second communicator, when the bytes may arrive (on rank 0's clock).

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/exec/Transport.h"
#include "runtime/plan/Plan.h"

namespace ps::runtime {
struct ExecShared;
}

namespace ps::runtime::mpi {

class MpiTransport final : public Transport {
 public:
  // Duplicates MPI_COMM_WORLD into its channels (a collective).
  explicit MpiTransport(ExecShared& shared);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Errors when the plan's keys do not fit in MPI tags.
  Status checkPlan() const;

  TransferStamps send(const MessageKey& key, int fromRank, int toRank, Tensor tensor) override;
  Result<Tensor> receive(const MessageKey& key, int fromRank, int toRank,
                         const std::shared_ptr<MemoryCounter>& memory) override;
  bool barrier(int rank) override;
  Status sumReplicaGradients(int rank, const RankStages& stages) override;
  Status allowsLanes() const override;
  void wakeAll() override {
    if (dataPlane_) dataPlane_->wakeAll();
  }

  // The cuda backend over MPI: tensors between processes, twin gradient sums and the step
  // barrier go through `plane` (NCCL on the GPUs); MPI keeps control, clocks and records.
  // Hand-overs between stages of this rank stay local.
  void setDataPlane(Transport* plane) { dataPlane_ = plane; }

  // --- clocks
  // Estimates this process's correction onto rank 0's clock (ExecShared::nowNs): ping-pongs with
  // rank 0 and keeps the round trip that took least. A collective; 0 on rank 0.
  std::int64_t syncClock();
  std::int64_t clockOffsetNs() const { return clockOffsetNs_; }
  std::int64_t alignedNowNs() const;

  // --- failure
  // Tells every other process that the run ends (ExecShared::onFail calls it; not for failures
  // that came from another process).
  void broadcastFailure(const std::string& message, bool cancelled);
  // Checks the control channel and the cancel flag, releases completed sends; true when the run
  // is aborting. Called by every wait.
  bool poll();
  // Called by poll() (e.g. the MPI executor turns a failed trace write into a run failure).
  std::function<void()> onPoll;

  // --- records (gathered to rank 0)
  void sendRecords(std::vector<char> bytes);  // to rank 0, non-blocking
  // Rank 0: the next records message from any rank, if one has arrived.
  bool tryReceiveRecords(std::vector<char>& bytes);
  // Waits (polling) until every records message this process sent has arrived; once the run
  // aborts, for at most `grace` more (so that rank 0 still gets the steps that were completed).
  void flushRecords(std::chrono::milliseconds grace);
  // Polls until `request` completes; false (request left pending) when the run aborts.
  bool wait(MPI_Request& request);
  // Yields the core while waiting: busy for the first polls, then short sleeps.
  static void backoff(int& spins);

 private:
  struct Pending {
    MPI_Request request = MPI_REQUEST_NULL;
    Tensor tensor;
    std::vector<char> bytes;
    std::int64_t value = 0;
    bool records = false;
  };
  int tagOf(const MessageKey& key) const;
  bool emulatesLink() const;
  void releaseCompleted();

  ExecShared& s_;
  int rank_ = 0;
  int size_ = 1;
  int tagUpperBound_ = 32767;
  MPI_Comm data_ = MPI_COMM_NULL;       // tensors
  MPI_Comm meta_ = MPI_COMM_NULL;       // delivery times (emulated links)
  MPI_Comm grads_ = MPI_COMM_NULL;      // replica gradient exchange
  MPI_Comm sync_ = MPI_COMM_NULL;       // barriers, clock ping-pong
  MPI_Comm records_ = MPI_COMM_NULL;    // per-step records to rank 0
  MPI_Comm control_ = MPI_COMM_NULL;    // failure / cancel notices
  std::list<Pending> pending_;          // sends in flight (buffers stay alive until done)
  std::map<MessageKey, Tensor> local_;  // hand-overs between stages of this rank
  std::int64_t clockOffsetNs_ = 0;
  bool fromPeer_ = false;
  // Held around every MPI call and the state above: a rank's two OpLanes may both send and
  // wait (MPI_THREAD_SERIALIZED). Recursive: poll() fails the run, which tells the others.
  mutable std::recursive_mutex calls_;
  using Lock = std::lock_guard<std::recursive_mutex>;
  Transport* dataPlane_ = nullptr;
};

}  // namespace ps::runtime::mpi
