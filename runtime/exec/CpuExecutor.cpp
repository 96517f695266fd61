#include "runtime/exec/CpuExecutor.h"

#include <thread>

#include "kernels/cpu/Gemm.h"
#include "runtime/exec/RankWorker.h"
#include "runtime/exec/ThreadTransport.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

Status writeReadySteps(ExecShared& s, trace::TraceWriter* writer, int& nextStep, int ranks,
                       bool flushAll, CpuRunResult& result, const CpuRunOptions& options) {
  for (;;) {
    trace::TraceBatch batch;
    std::vector<double> losses;
    {
      std::lock_guard lock(s.mutex);
      auto done = s.ranksDone.find(nextStep);
      const bool complete = done != s.ranksDone.end() && done->second >= ranks;
      if (!complete && !(flushAll && s.steps.count(nextStep))) return {};
      if (!complete && flushAll) {
        // A failed or cancelled run: keep what ranks recorded, but never a half step as done.
        s.steps.erase(nextStep);
        return {};
      }
      batch = std::move(s.steps[nextStep]);
      s.steps.erase(nextStep);
      losses = std::move(s.losses[nextStep]);
    }
    if (!losses.empty()) {
      double sum = 0;
      for (double l : losses)
        sum += l;
      const double mean = sum / static_cast<double>(losses.size());
      result.stepLoss.push_back(mean);
      const int lastRank = s.plan->placement[0][s.plan->numStages - 1].rank;
      batch.metrics.push_back({nextStep, lastRank, "loss", mean});
    }
    if (writer) PS_TRY(writer->write(batch));
    ++result.stepsWritten;
    if (options.onStepWritten) options.onStepWritten(nextStep);
    ++nextStep;
  }
}

Result<CpuRunResult> runRankThreads(ExecShared& s, trace::TraceWriter* writer,
                                    const std::function<Status()>& onStart) {
  const Plan& plan = *s.plan;
  const CpuRunOptions& options = *s.options;
  s.barrier = std::make_unique<StepBarrier>(plan.numRanks);
  s.linkFreeNs.assign(plan.numRanks, std::vector<std::int64_t>(plan.numRanks, 0));
  std::vector<std::unique_ptr<RankWorker>> workers;
  for (int r = 0; r < plan.numRanks; ++r) {
    s.mailboxes.push_back(std::make_unique<Mailbox>());
    workers.push_back(std::make_unique<RankWorker>(s, r));
    try {  // a device may throw (out of memory) while the stage's weights are placed
      PS_TRY(workers.back()->createStages());
    } catch (const std::exception& e) {
      return Error{"rank " + std::to_string(r) + ": " + e.what()};
    }
  }

  s.t0 = std::chrono::steady_clock::now();
  if (onStart) PS_TRY(onStart());
  std::vector<std::thread> threads;
  for (auto& w : workers)
    threads.emplace_back([&w] { w->run(); });

  CpuRunResult result;
  int nextStep = 0;
  Status writeStatus;
  std::size_t finished = 0;
  for (;;) {
    {
      std::unique_lock lock(s.mutex);
      s.stepReady.wait_for(lock, std::chrono::milliseconds(20));
    }
    if (options.cancel && options.cancel->load() && !s.abort) {
      {
        std::lock_guard lock(s.mutex);
        s.cancelled = true;
      }
      s.fail("cancelled");
    }
    if (writeStatus)
      writeStatus = writeReadySteps(s, writer, nextStep, plan.numRanks, false, result, options);
    if (!writeStatus && !s.abort) s.fail(writeStatus.error());
    if (s.abort) break;
    finished = 0;
    for (int r = 0; r < plan.numRanks; ++r) {
      std::lock_guard lock(s.mutex);
      if (s.ranksDone.count(plan.steps - 1) && s.ranksDone[plan.steps - 1] >= plan.numRanks)
        ++finished;
    }
    if (finished == static_cast<std::size_t>(plan.numRanks)) break;
  }
  for (auto& t : threads)
    t.join();
  if (writeStatus)
    writeStatus = writeReadySteps(s, writer, nextStep, plan.numRanks, true, result, options);

  for (auto& w : workers)
    result.peakMemory.push_back(w->peakMemory());
  for (int st = 0; st < plan.numStages; ++st)
    if (StageModel* m = s.stageModels[{0, st}]) {
      std::vector<float> p;
      try {
        p = m->copyParameters();
      } catch (const std::exception& e) {  // a failed device: keep the run's own message
        if (result.message.empty()) result.message = e.what();
      }
      result.finalParams.insert(result.finalParams.end(), p.begin(), p.end());
    }
  finishResult(s, writeStatus, result);
  return result;
}

Result<CpuRunResult> runOnCpuThreads(const Plan& plan, const OpGraph& graph,
                                     const CpuRunOptions& options, trace::TraceWriter* writer) {
  (void)graph;  // the plan was validated into it: in-order execution cannot deadlock
  if (options.dtype != kernels::DType::Fp32)
    return Error{"the cpu backend computes in fp32 only (--dtype " +
                 std::string(kernels::dtypeName(options.dtype)) + " needs --backend cuda)"};
  kernels::setBlasThreads(1);  // one BLAS thread per rank thread: ranks must not fight
  ExecShared s;
  s.plan = &plan;
  s.options = &options;
  ThreadTransport transport(s);
  s.transport = &transport;
  return runRankThreads(s, writer, nullptr);
}

}  // namespace ps::runtime
