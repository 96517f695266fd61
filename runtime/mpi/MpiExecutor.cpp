#include "runtime/mpi/MpiExecutor.h"

#include <mpi.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "kernels/cpu/Gemm.h"
#include "runtime/exec/RankWorker.h"
#include "runtime/mpi/MpiSession.h"
#include "runtime/mpi/MpiTransport.h"
#include "runtime/mpi/RecordCodec.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime::mpi {
namespace {

// Rank 0's side of the record gathering: merges what the other ranks send into the shared step
// table that writeReadySteps reads, exactly as the threaded ranks hand their steps over.
class RecordCollector {
 public:
  RecordCollector(ExecShared& s, MpiTransport& transport) : s_(s), transport_(transport) {}

  int ranksEnded() const { return ended_; }

  // Takes every records message that has arrived.
  Status drain() {
    std::vector<char> bytes;
    while (transport_.tryReceiveRecords(bytes)) {
      auto records = decodeRecords(bytes);
      if (!records) return std::move(records).takeError();
      {
        std::lock_guard lock(s_.mutex);
        for (auto& [step, batch] : records->steps) {
          auto& dst = s_.steps[step];
          dst.ops.insert(dst.ops.end(), std::make_move_iterator(batch.ops.begin()),
                         std::make_move_iterator(batch.ops.end()));
          dst.memory.insert(dst.memory.end(), batch.memory.begin(), batch.memory.end());
          dst.metrics.insert(dst.metrics.end(), batch.metrics.begin(), batch.metrics.end());
        }
        for (auto& [step, losses] : records->losses) {
          auto& all = s_.losses[step];
          all.insert(all.end(), losses.begin(), losses.end());
        }
        if (records->doneStep >= 0) ++s_.ranksDone[records->doneStep];
      }
      if (records->end) ++ended_;
      s_.stepReady.notify_all();
    }
    return {};
  }

 private:
  ExecShared& s_;
  MpiTransport& transport_;
  int ended_ = 0;
};

// Rank 0's writer thread: the threaded executor's collector loop, minus MPI (which stays on the
// rank's own thread). A write that fails is reported through `failed`/`error` for the rank's
// thread to turn into a run failure.
class WriterThread {
 public:
  WriterThread(ExecShared& s, trace::TraceWriter* writer, const CpuRunOptions& options,
               CpuRunResult& result)
      : s_(s), writer_(writer), options_(options), result_(result) {
    thread_ = std::thread([this] { loop(); });
  }
  ~WriterThread() { (void)stop(); }

  bool failed() const { return failed_.load(std::memory_order_acquire); }
  std::string error() const { return status_.error(); }

  // Writes what is complete, stops the thread, then (the run is over) flushes the rest.
  Status stop() {
    if (thread_.joinable()) {
      stop_ = true;
      s_.stepReady.notify_all();
      thread_.join();
      if (status_)
        status_ =
            writeReadySteps(s_, writer_, nextStep_, s_.plan->numRanks, true, result_, options_);
    }
    return status_;
  }

 private:
  void loop() {
    for (;;) {
      {
        std::unique_lock lock(s_.mutex);
        s_.stepReady.wait_for(lock, std::chrono::milliseconds(20));
      }
      const bool last = stop_ || s_.abort;
      if (status_) {
        status_ =
            writeReadySteps(s_, writer_, nextStep_, s_.plan->numRanks, false, result_, options_);
        if (!status_) failed_.store(true, std::memory_order_release);
      }
      if (last) return;
    }
  }

  ExecShared& s_;
  trace::TraceWriter* writer_;
  const CpuRunOptions& options_;
  CpuRunResult& result_;
  Status status_;
  int nextStep_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::thread thread_;
};

}  // namespace

Result<CpuRunResult> runOnMpiProcesses(const Plan& plan, const OpGraph& graph,
                                       const CpuRunOptions& options, trace::TraceWriter* writer,
                                       std::vector<trace::RankInfo> rankRows,
                                       const ProcessDevice* device) {
  (void)graph;                 // the plan was validated into it: in-order execution cannot deadlock
  kernels::setBlasThreads(1);  // ranks usually share the machine's cores
  ExecShared s;
  s.plan = &plan;
  s.options = &options;
  s.linkFreeNs.assign(plan.numRanks, std::vector<std::int64_t>(plan.numRanks, 0));
  s.t0 = std::chrono::steady_clock::now();
  MpiTransport transport(s);
  s.transport = &transport;
  const int rank = transport.rank();
  if (transport.size() != plan.numRanks)
    return Error{"--procs: MPI world size " + std::to_string(transport.size()) +
                 " differs from the plan's " + std::to_string(plan.numRanks) +
                 " ranks (launch with mpirun -np " + std::to_string(plan.numRanks) + ")"};

  Status setup;
  if (device && device->open) setup = device->open(s, rank);
  RankWorker worker(s, rank);
  if (setup) {
    try {  // a device may throw (out of memory) while the stage's weights are placed
      setup = worker.createStages();
    } catch (const std::exception& e) {
      setup = Error{"rank " + std::to_string(rank) + ": " + e.what()};
    }
  }
  if (setup) setup = transport.checkPlan();
  PS_TRY(agreeAcrossRanks(setup));

  // One clock axis: start every process's clock together, then measure what is left.
  if (!transport.barrier(rank)) return Error{"aborted"};
  s.t0 = std::chrono::steady_clock::now();
  const std::int64_t offset = transport.syncClock();
  if (device && device->start) {
    auto plane = device->start(s, rank, transport);
    PS_TRY(agreeAcrossRanks(plane ? Status{} : Status{Error{plane.error()}}));
    transport.setDataPlane(*plane);
  }
  std::vector<std::int64_t> offsets(rank == 0 ? plan.numRanks : 1);
  MPI_Gather(&offset, 1, MPI_INT64_T, offsets.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int hostLength = 0;
  MPI_Get_processor_name(host, &hostLength);
  std::vector<char> hosts(rank == 0 ? std::size_t{MPI_MAX_PROCESSOR_NAME} * plan.numRanks : 1);
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, MPI_COMM_WORLD);
  Status header;
  if (rank == 0 && writer)
    for (int r = 0; r < plan.numRanks && header; ++r) {
      trace::RankInfo row;
      for (const auto& given : rankRows)
        if (given.rank == r) row = given;
      row.rank = r;
      const char* name = hosts.data() + std::size_t{MPI_MAX_PROCESSOR_NAME} * r;
      row.host = std::string(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
      row.clock_offset_ns = offsets[r];
      header = writer->upsertRank(row);
    }
  PS_TRY(agreeAcrossRanks(header));

  CpuRunResult result;
  std::optional<RecordCollector> collector;
  std::optional<WriterThread> writerThread;
  if (rank == 0) {
    collector.emplace(s, transport);
    writerThread.emplace(s, writer, options, result);
    transport.onPoll = [&] {
      if (writerThread->failed() && !s.abort) s.fail(writerThread->error());
    };
  }
  // Every other rank ships what it handed over, on rank 0's clock, right after the step.
  auto ship = [&](int doneStep, bool end) {
    RankRecords records;
    records.rank = rank;
    records.end = end;
    records.doneStep = doneStep;
    {
      std::lock_guard lock(s.mutex);
      records.steps = std::move(s.steps);
      s.steps.clear();
      records.losses = std::move(s.losses);
      s.losses.clear();
    }
    transport.sendRecords(encodeRecords(records, transport.clockOffsetNs()));
  };
  s.onHandOver = [&](int step) -> Status {
    if (rank == 0) return collector->drain();
    ship(step, false);
    return {};
  };
  s.onFail = [&](const std::string& message) {
    bool cancelled = false;
    {
      std::lock_guard lock(s.mutex);
      cancelled = s.cancelled;
    }
    transport.broadcastFailure(message, cancelled);
  };

  worker.run();

  // The steps every rank completed stay in the file even when the run failed: each rank sends
  // rank 0 an end marker after whatever it handed over, and rank 0 waits for those a little
  // while after an abort.
  constexpr auto kGrace = std::chrono::milliseconds(2000);
  Status writeStatus;
  if (rank != 0) {
    ship(-1, true);
    transport.flushRecords(kGrace);
  } else {
    int spins = 0;
    std::optional<std::chrono::steady_clock::time_point> giveUpAt;
    while (collector->ranksEnded() < plan.numRanks - 1) {
      if (auto drained = collector->drain(); !drained) {
        s.fail(drained.error());
        break;
      }
      if (collector->ranksEnded() >= plan.numRanks - 1) break;
      if (transport.poll()) {  // aborting: the others' end markers are on their way
        const auto now = std::chrono::steady_clock::now();
        if (!giveUpAt) giveUpAt = now + kGrace;
        if (now > *giveUpAt) break;
      }
      MpiTransport::backoff(spins);
    }
    writeStatus = writerThread->stop();
  }

  result.peakMemory.push_back(worker.peakMemory());
  finishResult(s, writeStatus, result);
  return result;
}

}  // namespace ps::runtime::mpi
