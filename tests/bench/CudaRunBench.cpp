// The cuda backend against its own baselines, measured in the same process (issue 10 §6):
//  - recording overhead: the same 1F1B p=4 m=8 transformer run with CUDA-event op timing on vs
//    off (CpuRunOptions::eventTiming; off stamps ops with the host clock at issue), and with the
//    SQLite writer on top; steady-state seconds per step from whole runs of two lengths (the
//    difference cancels the setup), back-to-back so that drift hits both alike (goal <= 1 %);
//  - device-to-device transfer: back-to-back sends through runtime::CudaTransport itself (receive
//    buffer on the receiver, events both ways, cudaMemcpyPeerAsync on the sender's transfer
//    stream, event stamps around the copy) vs a bare cudaMemcpyAsync of the same size on the
//    same stream; ratio of the rates (goal >= 0.8 at an activation's size, 16 MiB);
//  - with >= 2 GPUs: NCCL send/recv GB/s from GPU 0 to GPU 1 (ncclCommInitAll, grouped
//    send/recv), beside cudaMemcpyPeerAsync between the same two for reference.
// Every goal and figure is printed again at the end as one "goal | ..." / "info | ..." line each
// (scripts/gpu-check reads them). Without a CUDA device the program says "no CUDA device (…):
// nothing to measure" and exits 0. Build with the default (Release) preset and run
// build/default/tests/bench/bench_cuda_run.

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/CudaDevice.h"
#include "runtime/cuda/CudaBackend.h"
#include "runtime/cuda/CudaEventClock.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/exec/RankWorker.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

#include "tests/bench/CudaBench.h"

namespace {

using namespace ps;
using namespace ps::bench;
using namespace ps::runtime;

// --- recording overhead --------------------------------------------------------------------------

struct RunModel {
  const char* tag;
  int hidden, seq, mbSize, heads;
  bool goal;  // host-bound models are for reference only
};
// The stage-sized model (GPU-bound: the goal), and pipescope-cli's default size (host-bound: what
// the per-op events cost when the GPU waits for the host anyway).
constexpr RunModel kRunModels[] = {
    {"transformer H=512 S=512 B=4", 512, 512, 4, 8, true},
    {"transformer H=64 S=16 B=4 (cli default)", 64, 16, 4, 4, false}};
constexpr int kShortSteps = 2, kLongSteps = 10, kPairs = 3;

enum class Recording { Off, Events, EventsAndSqlite };
constexpr const char* kRecordingName[] = {"off", "events", "events+sqlite"};

std::string tempPath(const std::string& tag) {
  return (std::filesystem::temp_directory_path() /
          ("pipescope-cudabench-" + tag + "-" + std::to_string(::getpid()) + ".sqlite"))
      .string();
}

void removeTrace(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::filesystem::remove(path + suffix);
}

Result<BuiltPlan> onefoneb(int steps) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.microbatches = 8;
  spec.steps = steps;
  return buildPlan(spec);
}

CpuRunOptions runOptions(const RunModel& m, int layers) {
  CpuRunOptions o;
  o.model.block = BlockType::Transformer;
  o.model.layers = layers;
  o.model.hidden = m.hidden;
  o.model.seq = m.seq;
  o.model.microbatchSize = m.mbSize;
  o.model.heads = m.heads;
  o.model.seed = 7;
  o.optimizer.kind = OptimizerKind::Adam;
  o.optimizer.lr = 1e-4f;
  return o;
}

// Wall seconds of one whole run (setup, steps, the devices drained).
Result<double> runSeconds(const BuiltPlan& built, const RunModel& m, Recording rec) {
  CpuRunOptions options = runOptions(m, built.plan.numLayers);
  options.eventTiming = rec != Recording::Off;
  const std::string path = tempPath("overhead");
  removeTrace(path);
  std::optional<trace::TraceStore> store;
  std::optional<trace::TraceWriter> writer;
  if (rec == Recording::EventsAndSqlite) {
    auto opened = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
    if (!opened) return Error{opened.error()};
    store.emplace(std::move(*opened));
    auto begun = trace::TraceWriter::begin(
        *store, planRunHeader(built.plan, built.cost, "cuda", "overhead", "{}"));
    if (!begun) return Error{begun.error()};
    writer.emplace(std::move(*begun));
  }
  syncAllDevices();
  const auto t0 = Clock::now();
  auto result = runOnCuda(built.plan, built.graph, options, writer ? &*writer : nullptr);
  syncAllDevices();
  const auto t1 = Clock::now();
  if (writer) (void)writer->finish(trace::RunStatus::Complete);
  writer.reset();
  store.reset();
  removeTrace(path);
  if (!result) return Error{result.error()};
  if (result->status != trace::RunStatus::Complete) return Error{result->message};
  return seconds(t0, t1);
}

void BM_RecordingOverhead(benchmark::State& state) {
  const RunModel& m = kRunModels[state.range(0)];
  auto shortPlan = onefoneb(kShortSteps);
  auto longPlan = onefoneb(kLongSteps);
  if (!shortPlan || !longPlan) {
    state.SkipWithError((shortPlan ? longPlan.error() : shortPlan.error()).c_str());
    return;
  }
  // stepSeconds[rec][pair]: (T(long) − T(short)) / (long − short steps).
  std::vector<double> stepSeconds[3];
  std::vector<double> eventRatio, sqliteRatio;
  for (auto _ : state) {
    // One warm-up run: the CUDA context, cuBLAS and the allocator's first blocks.
    if (auto warm = runSeconds(*shortPlan, m, Recording::Off); !warm) {
      state.SkipWithError(warm.error().c_str());
      return;
    }
    for (int pair = 0; pair < kPairs; ++pair) {
      double perStep[3] = {0, 0, 0};
      for (int k = 0; k < 3; ++k) {
        const auto rec = static_cast<Recording>((k + pair) % 3);  // rotate the order
        auto longRun = runSeconds(*longPlan, m, rec);
        auto shortRun = runSeconds(*shortPlan, m, rec);
        if (!longRun || !shortRun) {
          state.SkipWithError((longRun ? shortRun.error() : longRun.error()).c_str());
          return;
        }
        perStep[static_cast<int>(rec)] = (*longRun - *shortRun) / (kLongSteps - kShortSteps);
      }
      for (int r = 0; r < 3; ++r)
        stepSeconds[r].push_back(perStep[r]);
      eventRatio.push_back(perStep[1] / perStep[0]);
      sqliteRatio.push_back(perStep[2] / perStep[0]);
    }
  }
  const double ratio = median(eventRatio), withSqlite = median(sqliteRatio);
  state.counters["step_ms_off"] = median(stepSeconds[0]) * 1e3;
  state.counters["step_ms_events"] = median(stepSeconds[1]) * 1e3;
  state.counters["step_ms_events_sqlite"] = median(stepSeconds[2]) * 1e3;
  state.counters["ratio_events"] = ratio;
  state.counters["ratio_events_sqlite"] = withSqlite;
  std::sort(eventRatio.begin(), eventRatio.end());
  std::printf(
      "recording overhead (1f1b p=4 m=8, %s, %d GPU(s)): step %.3f ms with event timing vs "
      "%.3f ms without (host stamps); median ratio of %d back-to-back pairs %.4f (from %.4f to "
      "%.4f)%s; with the SQLite writer too: %.3f ms, ratio %.4f\n",
      m.tag, deviceCount(), median(stepSeconds[1]) * 1e3, median(stepSeconds[0]) * 1e3, kPairs,
      ratio, eventRatio.front(), eventRatio.back(),
      m.goal ? (ratio <= 1.01 ? " (goal <= 1.01 met)" : " (goal <= 1.01 MISSED)")
             : " (host-bound: for reference)",
      median(stepSeconds[2]) * 1e3, withSqlite);
  const std::string what =
      std::string("recording overhead, event timing on vs off (1f1b p=4 m=8, ") + m.tag + ")";
  const std::string figure = format("%+.2f %%", (ratio - 1) * 100) + " (" +
                             format("%.2f", median(stepSeconds[1]) * 1e3) + " vs " +
                             format("%.2f ms/step", median(stepSeconds[0]) * 1e3) + ")";
  rows().push_back({m.goal, what, figure, m.goal ? "<= 1 %" : "-", ratio <= 1.01});
  rows().push_back({false,
                    std::string("recording overhead, events + SQLite writer (") + m.tag + ")",
                    format("%+.2f %%", (withSqlite - 1) * 100), "-", true});
}
BENCHMARK(BM_RecordingOverhead)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const CudaAvailability avail = cudaAvailability();
  if (!avail.available()) {
    const std::string& why = avail.reason;
    std::printf("%s: nothing to measure\n", why.rfind("no CUDA device", 0) == 0
                                                ? why.c_str()
                                                : ("no CUDA device (" + why + ")").c_str());
    return 0;
  }
  const int gpus = deviceCount();
  std::printf("%d CUDA device(s); GPU 0: %s\n", gpus, avail.devices.front().name.c_str());
  registerTransferBenchmarks(gpus);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("summary (bench_cuda_run):\n");
  for (const Row& r : rows())
    std::printf("%s | %s | %s | %s | %s\n", r.goal ? "goal" : "info", r.check.c_str(),
                r.figure.c_str(), r.target.c_str(), r.goal ? (r.pass ? "PASS" : "FAIL") : "-");
  return 0;
}
