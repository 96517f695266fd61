// Fitting a plan to a run of about a million ops (issue 31 §5: fit_s_per_million_ops, goal <= 1):
// a simulated 1F1B run, P 8, M 4096, PIPESCOPE_BENCH_FIT_STEPS steps (default 6: ~1.1M ops with
// a SEND and a RECV per transfer), written to a store and loaded back as `fit` loads it, then
// runtime::fit::fitPlan on it. The baseline in the same process is simulating that plan once
// (fitPlan replays the fitted plan through the same simulator, several times when it fits the
// link latency): fit_over_simulate says how many simulations' worth the fit costs.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "runtime/cost/CostModel.h"
#include "runtime/fit/PlanFit.h"
#include "runtime/plan/Validator.h"
#include "runtime/run/RunPlan.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/sim/Simulator.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace ps::runtime;

double secondsSinceFit(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void BM_FitPlanMillionOps(benchmark::State& state) {
  const char* stepsText = std::getenv("PIPESCOPE_BENCH_FIT_STEPS");
  const int steps = stepsText != nullptr && std::atoi(stepsText) > 0 ? std::atoi(stepsText) : 6;
  auto plan = generateSchedule("1f1b", ScheduleParams{8, 4096, 1, 1});
  auto repeated = plan ? repeatSteps(*plan, steps, OptimizerSync::Barrier)
                       : ps::Result<Plan>(ps::Error{plan.error()});
  if (!repeated) {
    state.SkipWithError(repeated.error().c_str());
    return;
  }
  auto graph = validatePlan(*repeated);
  UniformCostFlags flags;
  flags.layers = repeated->numLayers;
  flags.actMb = 1;
  auto cost = uniformCostModel(flags);
  auto t0 = Clock::now();
  auto sim =
      graph ? simulate(*repeated, *graph, *cost) : ps::Result<SimResult>(ps::Error{graph.error()});
  const double simulateS = secondsSinceFit(t0);
  if (!sim) {
    state.SkipWithError(sim.error().c_str());
    return;
  }
  const std::string db = (std::filesystem::temp_directory_path() /
                          ("pipescope-fitbench-" + std::to_string(::getpid()) + ".sqlite"))
                             .string();
  ps::Result<ps::trace::RunTrace> run = ps::Error{"not loaded"};
  {
    auto store = ps::trace::TraceStore::open(db, ps::trace::TraceStore::Mode::ReadWrite);
    RunPlanRequest request;
    request.built = std::make_shared<const BuiltPlan>(
        BuiltPlan{.plan = std::move(*repeated), .cost = *cost, .graph = std::move(*graph)});
    request.name = "fit bench";
    request.configJson = "{}";
    auto saved = store ? savePreview(previewOf(request, std::move(*sim)), {"", &*store})
                       : ps::Result<RunPlanResult>(ps::Error{store.error()});
    if (saved && saved->runId)
      run = ps::trace::loadRun(*store, *saved->runId);
    else
      run = ps::Error{saved ? saved->message : saved.error()};
  }
  std::filesystem::remove(db);
  if (!run) {
    state.SkipWithError(run.error().c_str());
    return;
  }
  const double ops = static_cast<double>(run->opCount());
  double fastest = 1e300;
  std::string schedule;
  for (auto _ : state) {
    t0 = Clock::now();
    auto fit = fit::fitPlan(*run);
    fastest = std::min(fastest, secondsSinceFit(t0));
    if (!fit) {
      state.SkipWithError(fit.error().c_str());
      return;
    }
    schedule = fit->match.name;
  }
  const double perMillion = fastest / (ops / 1e6);
  state.counters["ops"] = ops;
  state.counters["fit_s"] = fastest;
  state.counters["fit_s_per_million_ops"] = perMillion;
  state.counters["fit_over_simulate"] = fastest / simulateS;
  std::printf(
      "fit 1f1b P 8 M 4096 x %d steps (%.0f ops, named %s): %.2f s = %.2f s per million ops "
      "(goal <= 1); simulating the plan once: %.2f s (fit = %.1fx)\n",
      steps, ops, schedule.c_str(), fastest, perMillion, simulateS, fastest / simulateS);
}

BENCHMARK(BM_FitPlanMillionOps)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

}  // namespace
