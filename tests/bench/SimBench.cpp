// Generate + validate + simulate (+ write) for large plans: interleaved p=64, m=1024, v=2 and
// 1F1B p=128, m=4096. Prints ms per phase and ns per op (goal: <= 50 ms for the first without
// the write on a 2-core machine; cost linear in ops — compare ns/op across the two sizes).
// Lowering (SEND/RECV insertion, what `export torch-csv --comms` and the executors use) is timed
// too but is not part of that sum. Each phase reports its fastest iteration, wall clock and CPU
// time of this thread: on a shared machine the CPU time is the steadier figure. "ops" counts the
// records a trace file gets: the compute ops plus a SEND and a RECV per transfer. BM_Partition_p64
// times the partitioner over many layers.

#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "runtime/cost/CostModel.h"
#include "runtime/cost/Partitioner.h"
#include "runtime/plan/Lowering.h"
#include "runtime/plan/Validator.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/RunPlan.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"
#include "trace/store/TraceStore.h"

namespace {

using namespace ps::runtime;
using Clock = std::chrono::steady_clock;

double cpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// One phase's fastest wall and CPU time over the iterations.
struct Phase {
  const char* name;
  double wall = std::numeric_limits<double>::max(), cpu = std::numeric_limits<double>::max();
  Clock::time_point w0;
  double c0 = 0;
  void start() {
    w0 = Clock::now();
    c0 = cpuMs();
  }
  void stop() {
    wall = std::min(wall, std::chrono::duration<double, std::milli>(Clock::now() - w0).count());
    cpu = std::min(cpu, cpuMs() - c0);
  }
};

void runPipeline(benchmark::State& state, const char* schedule, int p, int m, int v, bool write) {
  Phase gen{"generate"}, val{"validate"}, sim{"simulate"}, low{"lower"}, wr{"write"};
  std::size_t ops = 0;
  for (auto _ : state) {
    gen.start();
    ScheduleParams params{p, m, v, 1};
    auto plan = generateSchedule(schedule, params);
    if (!plan.ok()) {
      state.SkipWithError(plan.error().c_str());
      return;
    }
    auto repeated = repeatSteps(*plan, 1, OptimizerSync::Barrier);
    gen.stop();
    val.start();
    auto graph = validatePlan(*repeated);
    val.stop();
    sim.start();
    UniformCostFlags flags;
    flags.layers = repeated->numLayers;
    flags.actMb = 1;
    auto cost = uniformCostModel(flags);
    auto result = simulate(*repeated, *graph, *cost);
    sim.stop();
    if (!graph.ok() || !result.ok()) {
      state.SkipWithError("validate or simulate failed");
      return;
    }
    ops = result->records.size() + 2 * result->transfers.size();  // a transfer: SEND + RECV
    low.start();
    auto lowered = lowerCommunication(*repeated, *graph);
    low.stop();
    benchmark::DoNotOptimize(lowered.data());
    if (write) {
      // Saved as the app saves a run it showed (the preview is made before the clock starts).
      RunPlanRequest request;
      request.built = std::make_shared<const BuiltPlan>(
          BuiltPlan{.plan = std::move(*repeated), .cost = *cost, .graph = std::move(*graph)});
      request.name = "bench";
      request.configJson = "{}";
      const PlanPreview preview = previewOf(request, std::move(*result));
      const std::string path = (std::filesystem::temp_directory_path() /
                                ("pipescope-simbench-" + std::to_string(::getpid()) + ".sqlite"))
                                   .string();
      wr.start();
      {
        auto store = ps::trace::TraceStore::open(path, ps::trace::TraceStore::Mode::ReadWrite);
        auto saved = savePreview(preview, {"", &*store});
        if (!saved.ok())
          state.SkipWithError(saved.error().c_str());
        else if (saved->status != ps::trace::RunStatus::Complete)
          state.SkipWithError(saved->message.c_str());
      }
      std::filesystem::remove(path);
      wr.stop();
    } else {
      wr.start();
      wr.stop();
    }
  }
  const double wallMs = gen.wall + val.wall + sim.wall, cpuSum = gen.cpu + val.cpu + sim.cpu;
  const double perOp = 1e6 / static_cast<double>(ops);
  state.counters["ops"] = static_cast<double>(ops);
  for (const Phase* ph : {&gen, &val, &sim, &low, &wr}) {
    state.counters[std::string(ph->name) + "_ms"] = ph->wall;
    state.counters[std::string(ph->name) + "_cpu_ms"] = ph->cpu;
  }
  state.counters["ns_per_op_no_write"] = wallMs * perOp;
  std::printf(
      "%s p=%d m=%d v=%d: %zu ops; fastest wall (cpu) ms: generate %.1f (%.1f), validate %.1f "
      "(%.1f), simulate %.1f (%.1f) = %.1f (%.1f), %.0f (%.0f) ns/op; lower %.1f (%.1f), "
      "write %.1f\n",
      schedule, p, m, v, ops, gen.wall, gen.cpu, val.wall, val.cpu, sim.wall, sim.cpu, wallMs,
      cpuSum, wallMs * perOp, cpuSum * perOp, low.wall, low.cpu, wr.wall);
}

void BM_Interleaved_p64_m1024_v2(benchmark::State& state) {
  runPipeline(state, "interleaved-1f1b", 64, 1024, 2, state.range(0) != 0);
}
BENCHMARK(BM_Interleaved_p64_m1024_v2)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

void BM_OneFOneB_p128_m4096(benchmark::State& state) {
  runPipeline(state, "1f1b", 128, 4096, 1, state.range(0) != 0);
}
BENCHMARK(BM_OneFOneB_p128_m4096)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

// The partitioner, p = 64 stages over L layers of slightly uneven cost: linear in L (the former
// O(S·L²) DP took 7.7 s at 16384 layers and over 120 s at 65536). Compare ms across the sizes.
void BM_Partition_p64(benchmark::State& state) {
  UniformCostFlags flags;
  flags.layers = static_cast<int>(state.range(0));
  auto model = uniformCostModel(flags);
  for (int l = 0; l < flags.layers; ++l)
    model->layers[l].fwdNs = 1000 + (l * 7919) % 997;
  PartitionRequest request;
  request.numStages = 64;
  for (auto _ : state) {
    auto partition = partitionLayers(*model, request);
    benchmark::DoNotOptimize(partition);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Partition_p64)
    ->RangeMultiplier(4)
    ->Range(1024, 65536)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

}  // namespace

BENCHMARK_MAIN();
