#pragma once
// What the rank threads of one run share (the transport, the abort flag, the steps they hand
// over) and the run-wide helpers over it: the threaded runner and the collector that writes the
// handed-over steps. RankWorker (one rank's thread) works against it.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/exec/Mailbox.h"
#include "runtime/exec/OpClock.h"
#include "runtime/exec/StepBarrier.h"
#include "runtime/exec/Transport.h"
#include "runtime/model/StageModel.h"
#include "runtime/plan/Plan.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

struct CpuRunOptions;

// Layers [firstLayer, lastLayer] that replica 0's copy `holder` and another replica's `other`
// both hold; their gradients are summed slice by slice.
struct ReplicaSlice {
  StageModel* holder = nullptr;
  StageModel* other = nullptr;
  int firstLayer = 0, lastLayer = 0;
  // Calls visit(holderOffset, otherOffset, count) for each run of floats the copies hold alike
  // (StageModel::forEachReplicatedRun).
  template <class Visit>
  void forEachShared(Visit visit) const {
    holder->forEachReplicatedRun(firstLayer, lastLayer,
                                 [&](int layer, std::size_t at, std::size_t count) {
                                   visit(at, other->layerOffset(layer), count);
                                 });
  }
};

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
  // Wave-synchronous replicas (HetPipe): per (replica, step, layer) the gradients a replica
  // published, with how many other replicas still have to take them (RankWorkerWave.cpp).
  using WaveKey = std::tuple<int, int, int>;
  std::map<WaveKey, std::pair<std::vector<float>, int>> waveGradients;
  std::condition_variable waveReady;
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
  // HetPipe's gradients between replicas: publish a layer's for `readers` other replicas; take
  // them, waiting until they are published (an error once the run aborts).
  void publishWaveGradients(const WaveKey& key, std::vector<float> grads, int readers);
  [[nodiscard]] Result<std::vector<float>> takeWaveGradients(const WaveKey& key);
  // Wakes every rank thread waiting on a mailbox or the step barrier (after abort was set).
  void wakeThreadWaiters();
  // Replicated plans: (replica 0's copy held in `stages`, another replica's copy) for every
  // replicated stage whose replica 0 is in `stages` and every other replica (one pair for
  // Chimera's twins, D − 1 for --dp D): the holder of replica 0 sums the gradients for all.
  std::vector<std::pair<StageModel*, StageModel*>> twinsHeldBy(const RankStages& stages) const;
  // The same by layers, for replicas cut each their own way (--own-cuts, HetPipe): for every
  // stage of replica 0 in `stages`, each run of its layers another replica's stage copy also
  // holds. With one cut each slice is a whole stage and its twin.
  std::vector<ReplicaSlice> replicaSlicesHeldBy(const RankStages& stages) const;
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

}  // namespace ps::runtime
