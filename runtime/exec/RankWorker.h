#pragma once
// One rank of the cpu backend: runs its program in order on its own thread.

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#include "runtime/exec/ActionMessages.h"
#include "runtime/exec/Mailbox.h"
#include "runtime/exec/OpClock.h"
#include "runtime/exec/StepBarrier.h"
#include "runtime/exec/Transport.h"
#include "runtime/model/StageModel.h"
#include "runtime/plan/Plan.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

struct CpuRunOptions;

// What every rank thread shares: the transport, the abort flag, finished steps. In an MPI run
// (runtime/mpi) each process has its own, holding its one rank.
struct ExecShared {
  const Plan* plan = nullptr;
  const CpuRunOptions* options = nullptr;
  std::chrono::steady_clock::time_point t0;
  // Per rank, where its tensors live and how its ops are timed; empty or null = the host device
  // and the host clock (the cpu backend). Owned by the executor.
  std::vector<kernels::ComputeDevice*> devices;
  std::vector<OpClock*> clocks;
  // Per rank, its memory counter (set by RankWorker::createStages): a transport that pushes a
  // tensor into the receiver's memory allocates it there.
  std::vector<std::shared_ptr<MemoryCounter>> rankMemory;
  Transport* transport = nullptr;
  std::vector<std::unique_ptr<Mailbox>> mailboxes;  // per rank (ThreadTransport)
  std::unique_ptr<StepBarrier> barrier;             // ThreadTransport
  std::atomic<bool> abort{false};
  std::mutex mutex;  // guards everything below
  std::condition_variable stepReady;
  std::string failure;
  bool cancelled = false;
  std::map<int, trace::TraceBatch> steps;             // step -> what ranks handed over
  std::map<int, int> ranksDone;                       // step -> ranks that handed it over
  std::map<int, std::vector<double>> losses;          // step -> per-micro-batch losses
  std::vector<std::vector<std::int64_t>> linkFreeNs;  // [src][dst] emulated link busy-until
  // Replicated stages (bidirectional plans): every copy, for the gradient exchange.
  std::map<std::pair<int, int>, StageModel*> stageModels;  // (replica, stage) -> model
  // Called on the rank's thread after it handed a step over (MPI: ship it to rank 0); an error
  // fails the rank.
  std::function<Status(int step)> onHandOver;
  // Called by fail() (MPI: tell the other processes).
  std::function<void(const std::string& message)> onFail;

  std::int64_t nowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                t0)
        .count();
  }
  void fail(const std::string& message);
  // Wakes every rank thread waiting on a mailbox or the step barrier (after abort was set).
  void wakeThreadWaiters();
  // Replicated plans: (replica 0's copy held in `stages`, another replica's copy) for every
  // replicated stage whose replica 0 is in `stages` and every other replica (one pair for
  // Chimera's twins, D − 1 for --dp D): the holder of replica 0 sums the gradients for all.
  std::vector<std::pair<StageModel*, StageModel*>> twinsHeldBy(const RankStages& stages) const;
};

struct CpuRunResult;

// Writes every step all ranks have handed over, in step order, advancing `nextStep` (the
// collector of the threaded executor and of the MPI backend's rank 0). `flushAll`: the run is
// over; a step not every rank handed over is dropped, never written as done.
Status writeReadySteps(ExecShared& s, trace::TraceWriter* writer, int& nextStep, int ranks,
                       bool flushAll, CpuRunResult& result, const CpuRunOptions& options);

// The run's final status from what the ranks and the writer reported: cancelled, failed (the
// first rank's message, else the writer's), or complete. Shared by the thread and MPI executors.
void finishResult(const ExecShared& shared, const Status& writeStatus, CpuRunResult& result);

// Runs every rank of `s` (plan, options, transport and per-rank devices/clocks already set) as a
// thread, writing each step as all ranks finish it; `onStart` runs after the run's clock starts
// and before any rank does (e.g. to pin device clocks to it). Shared by the cpu and cuda backends.
Result<CpuRunResult> runRankThreads(ExecShared& s, trace::TraceWriter* writer,
                                    const std::function<Status()>& onStart);

class RankWorker {
 public:
  RankWorker(ExecShared& shared, int rank) : s_(shared), rank_(rank) {}
  // Builds this rank's stage models (called before any thread starts).
  Status createStages();
  // The thread body: runs the program; reports failure through ExecShared::fail.
  void run();
  std::int64_t peakMemory() const { return memory_ ? memory_->peakBytes() : 0; }
  StageModel* stage(int replica, int stage) const;

 private:
  Status execute(const Action& a);
  Status forward(const Action& a, StageModel& model);
  Status backwardInput(const Action& a, StageModel& model, bool full);
  Status optimizer(const Action& a);
  // Hands an inference step (forward-only plans have no OPT) over once its last op ran.
  Status endInferenceStep(int step);
  // BPipe: after F, the micro-batch's stash goes to its holder's memory (OFFLOAD); before its
  // first backward op it comes back (RELOAD). Copies on this rank's thread (no copy engine on
  // a cpu). Nothing for activations that stay.
  Status moveActivations(const Action& a, StageModel& model, bool away);
  Result<Tensor> receive(const MessageKey& key, int fromRank, OpKind recvKind, const Action& a);
  void deliver(const MessageKey& key, int toRank, Tensor tensor, OpKind sendKind, const Action& a);
  // A received activation or gradient of `expected` floats, or an error naming both ranks.
  [[nodiscard]] Status checkReceived(const Tensor& got, long expected, int peer,
                                     const Action& a) const;
  // Stage DAGs (RankWorkerDag.cpp): receives each message and adds it into `sum`; sends a copy
  // of `tensor` along each message.
  [[nodiscard]] Status receiveAndAdd(const std::vector<ActionMessage>& messages, Tensor& sum,
                                     const Action& a);
  void deliverCopies(const std::vector<ActionMessage>& messages, const Tensor& tensor,
                     const StageModel& model, const Action& a);
  void record(OpKind kind, const Action& a, std::int64_t start, std::int64_t end, int peer = -1,
              std::int64_t bytes = -1);
  void sampleMemory(int step);
  // A stamp of the rank's clock: host ns, or a token the clock resolves at hand-over.
  std::int64_t stamp() { return clock_ ? clock_->mark() : s_.nowNs(); }
  // Moves the steps up to `step` (resolved stamps) and `losses` (of `step`) to the collector.
  Status handOver(int step, const std::vector<double>& losses);
  // The losses of `step` on this rank's last stages; `finished`: the step is known to be done
  // on the device (read without waiting for the device's queue).
  std::vector<double> stepLosses(int step, bool finished) const;
  // Resolves the clock's stamps of the recorded steps up to `step` (waiting at most `within`).
  Status resolvePending(int step, std::optional<std::chrono::milliseconds> within);
  // Hands over the deferred steps (device clocks) but the newest `keep`.
  Status handOverDeferred(std::size_t keep, std::optional<std::chrono::milliseconds> within);
  void salvageDeferred();

  ExecShared& s_;
  int rank_;
  std::shared_ptr<MemoryCounter> memory_;
  OpClock* clock_ = nullptr;
  RankStages stages_;  // (replica, stage)
  std::map<std::pair<int, int>, std::shared_ptr<const ParamVersion>> published_;  // 2BW
  std::map<int, trace::TraceBatch> pending_;  // step -> recorded, not yet handed over
  std::deque<int> deferred_;  // device clocks: steps whose OPT ran, handed over a step later
  std::int64_t lastMemory_ = -1;
  std::map<std::pair<int, int>, int> holderOf_;  // BPipe: (stage, micro-batch) -> holder rank
  // XPipe: per (stage, micro-batch, step) the rank's optimizer steps between its F and its
  // backward: how far ahead the forward's weights are predicted.
  std::map<std::tuple<int, int, int>, int> updatesBeforeBackward_;
  // DiffusionPipe (RankWorkerFrozen.cpp): the frozen encoder this rank's FILL ops run, and per
  // (step, micro-batch) the rank whose FILL feeds F(0) of it.
  std::unique_ptr<StageModel> frozen_;
  std::map<std::pair<int, int>, int> fillRankOf_;
  [[nodiscard]] Status createFrozenEncoder(const ModelConfig& config);
  [[nodiscard]] Status frozenForward(const Action& a);
  // F(0)'s input from its FILL, when a FILL feeds it; an empty tensor otherwise.
  [[nodiscard]] Result<Tensor> frozenInput(const Action& a);
};

}  // namespace ps::runtime
