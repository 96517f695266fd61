// Generate + validate + simulate (+ write) for large plans: interleaved p=64, m=1024, v=2 and
// 1F1B p=128, m=4096. Prints ms per phase and ns per op (goal: <= 50 ms for the first without
// the write on a 2-core machine; cost linear in ops — compare ns/op across the two sizes).

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/PlanBuilder.h"
#include "runtime/plan/Validator.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/SimWriter.h"
#include "runtime/sim/Simulator.h"
#include "trace/store/TraceStore.h"

namespace {

using namespace ps::runtime;
using Clock = std::chrono::steady_clock;

double ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

void runPipeline(benchmark::State& state, const char* schedule, int p, int m, int v, bool write) {
  double genMs = 0, valMs = 0, simMs = 0, writeMs = 0;
  std::size_t ops = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    ScheduleParams params{p, m, v, 1};
    auto plan = generateSchedule(schedule, params);
    if (!plan.ok()) {
      state.SkipWithError(plan.error().c_str());
      return;
    }
    auto repeated = repeatSteps(*plan, 1, OptimizerSync::Barrier);
    const auto t1 = Clock::now();
    auto graph = validatePlan(*repeated);
    const auto t2 = Clock::now();
    UniformCostFlags flags;
    flags.layers = repeated->numLayers;
    flags.actMb = 1;
    auto cost = uniformCostModel(flags);
    auto result = simulate(*repeated, *graph, *cost);
    const auto t3 = Clock::now();
    if (!graph.ok() || !result.ok()) {
      state.SkipWithError("validate or simulate failed");
      return;
    }
    ops = result->records.size();
    if (write) {
      const std::string path = (std::filesystem::temp_directory_path() /
                                ("pipescope-simbench-" + std::to_string(::getpid()) + ".sqlite"))
                                   .string();
      {
        auto store = ps::trace::TraceStore::open(path, ps::trace::TraceStore::Mode::ReadWrite);
        auto id = writeSimulation(*store, *repeated, *cost, *result, "bench", "{}");
        if (!id.ok()) state.SkipWithError(id.error().c_str());
      }
      std::filesystem::remove(path);
    }
    const auto t4 = Clock::now();
    genMs += ms(t0, t1);
    valMs += ms(t1, t2);
    simMs += ms(t2, t3);
    writeMs += ms(t3, t4);
  }
  const double n = static_cast<double>(state.iterations());
  const double computeMs = (genMs + valMs + simMs) / n;
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["generate_ms"] = genMs / n;
  state.counters["validate_ms"] = valMs / n;
  state.counters["simulate_ms"] = simMs / n;
  state.counters["write_ms"] = writeMs / n;
  state.counters["ns_per_op_no_write"] = computeMs * 1e6 / static_cast<double>(ops);
  std::printf(
      "%s p=%d m=%d v=%d: %zu ops; generate %.1f ms, validate %.1f ms, simulate %.1f ms "
      "(= %.1f ms, %.0f ns/op), write %.1f ms\n",
      schedule, p, m, v, ops, genMs / n, valMs / n, simMs / n, computeMs,
      computeMs * 1e6 / static_cast<double>(ops), writeMs / n);
}

void BM_Interleaved_p64_m1024_v2(benchmark::State& state) {
  runPipeline(state, "interleaved-1f1b", 64, 1024, 2, state.range(0) != 0);
}
BENCHMARK(BM_Interleaved_p64_m1024_v2)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

void BM_OneFOneB_p128_m4096(benchmark::State& state) {
  runPipeline(state, "1f1b", 128, 4096, 1, state.range(0) != 0);
}
BENCHMARK(BM_OneFOneB_p128_m4096)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
