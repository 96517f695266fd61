#pragma once
// What the cpu backend benchmarks (CpuRunBench.cpp) share: the model, optimizer and plan they run,
// a steady-state timed run, temporary trace files and a median.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"
#include "trace/store/TraceWriter.h"

namespace ps::bench {

using namespace ps;
using namespace ps::runtime;
using Clock = std::chrono::steady_clock;

inline constexpr int kRanks = 2;
inline constexpr int kMicrobatches = 8;
inline constexpr int kLayers = 4;

inline ModelConfig benchModel(int hidden = 128) {
  ModelConfig c;
  c.block = BlockType::Mlp;
  c.layers = kLayers;
  c.hidden = hidden;
  c.seq = 32;
  c.microbatchSize = 4;
  return c;
}

inline OptimizerConfig benchOptimizer() {
  OptimizerConfig o;
  o.kind = OptimizerKind::Adam;
  o.lr = 1e-3f;
  return o;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline std::string tempPath(const std::string& tag) {
  return (std::filesystem::temp_directory_path() /
          ("pipescope-cpubench-" + tag + "-" + std::to_string(::getpid()) + ".sqlite"))
      .string();
}

inline void removeTrace(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::filesystem::remove(path + suffix);
}

inline std::optional<BuiltPlan> plan(const std::string& schedule, int steps,
                                     benchmark::State& state) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = kRanks;
  spec.microbatches = kMicrobatches;
  spec.layers = kLayers;
  spec.steps = steps;
  auto built = buildPlan(spec);
  if (!built) {
    state.SkipWithError(built.error().c_str());
    return std::nullopt;
  }
  return std::move(*built);
}

inline double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Timing {
  double stepSeconds = 0;       // steady state, see timedRun
  double writerCpuSeconds = 0;  // CPU time of the calling thread (it writes the steps), per step
};

// Steady-state seconds per step: the time between the first and the last step being handed
// over, divided by the steps in between (the first step's warm-up and the setup are excluded).
inline std::optional<Timing> timedRun(const BuiltPlan& built, const ModelConfig& model,
                                      trace::TraceWriter* writer, benchmark::State& state) {
  CpuRunOptions options;
  options.model = model;
  options.optimizer = benchOptimizer();
  std::vector<Clock::time_point> written;
  options.onStepWritten = [&](int) { written.push_back(Clock::now()); };
  const double cpu0 = threadCpuSeconds();
  auto result = runOnCpuThreads(built.plan, built.graph, options, writer);
  const double cpu = threadCpuSeconds() - cpu0;
  if (!result || result->status != trace::RunStatus::Complete || written.size() < 2) {
    state.SkipWithError(result ? result->message.c_str() : result.error().c_str());
    return std::nullopt;
  }
  Timing t;
  t.stepSeconds = std::chrono::duration<double>(written.back() - written.front()).count() /
                  static_cast<double>(written.size() - 1);
  t.writerCpuSeconds = cpu / static_cast<double>(written.size());
  return t;
}

inline trace::RunHeader header(const BuiltPlan& built, const std::string& name) {
  trace::RunHeader h = planRunHeader(built.plan, built.cost, "cpu", name, "{}");
  h.layers.clear();
  return h;
}

// --- tracing overhead -------------------------------------------------------------------------

}  // namespace ps::bench
