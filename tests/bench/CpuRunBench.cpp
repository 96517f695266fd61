// The cpu backend against its own baselines, measured in the same process (issue 4, Benchmarks):
//  - tracing overhead: the same run recording into a trace file vs with no writer; steady-state
//    step time ratio (goal <= 1.02);
//  - simulator fidelity: 2 ranks, costs calibrated on this backend, 1f1b and zb-h1 at m = 8;
//    predicted vs measured step time (goal <= 5 % error) and bubble (goal <= 3 points apart);
//  - kernels: the unpipelined model's GEMM throughput vs one rank's OpenBLAS sgemm peak and vs
//    sgemm at the model's own GEMM shape (model_over_sgemm, issue 16: goal >= 0.6);
//  - Piper: a mixture of experts' all-to-alls overlapped against serial (overlap_over_serial;
//    Release, 2 cores: 0.68 at 1 and 4 ms of link latency, 1.42 with none).
// Build with the default (Release) preset and run build/default/tests/bench/bench_cpu_run.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kernels/cpu/Gemm.h"
#include "kernels/cpu/VectorMath.h"
#include "runtime/exec/Calibrate.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/StageModel.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/RunPlan.h"
#include "runtime/sim/Simulator.h"
#include "tests/bench/CpuRunBenchUtil.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace {

using namespace ps;
using namespace ps::runtime;
using namespace ps::bench;

void tracingOverhead(benchmark::State& state, int hidden) {
  const int steps = 6, pairs = 5;
  auto built = plan("1f1b", steps, state);
  if (!built) return;
  const ModelConfig model = benchModel(hidden);
  std::vector<double> on, off, ratios, writerCpu;
  for (auto _ : state) {
    for (int rep = 0; rep < pairs; ++rep) {  // back-to-back pairs: drift hits both alike
      auto none = timedRun(*built, model, nullptr, state);
      if (!none) return;
      const std::string path = tempPath("overhead");
      removeTrace(path);
      {
        auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
        auto writer = trace::TraceWriter::begin(*store, header(*built, "overhead"));
        if (!store || !writer) {
          state.SkipWithError("cannot open the trace file");
          return;
        }
        auto recorded = timedRun(*built, model, &*writer, state);
        if (!recorded) return;
        (void)writer->finish(trace::RunStatus::Complete);
        on.push_back(recorded->stepSeconds);
        off.push_back(none->stepSeconds);
        ratios.push_back(recorded->stepSeconds / none->stepSeconds);
        // What recording costs in CPU: the writing thread's time beyond an idle collector's.
        writerCpu.push_back(recorded->writerCpuSeconds - none->writerCpuSeconds);
      }
      removeTrace(path);
    }
  }
  const double ratio = median(ratios);
  // Bound on the overhead if every writing cycle delayed a rank: the writer's CPU per step over
  // the step time (the run has as many busy ranks as cores).
  const double cpuBound = 1.0 + median(writerCpu) / median(off);
  state.counters["step_ms_recording"] = median(on) * 1e3;
  state.counters["step_ms_no_writer"] = median(off) * 1e3;
  state.counters["ratio"] = ratio;
  state.counters["writer_cpu_ms_per_step"] = median(writerCpu) * 1e3;
  state.counters["ratio_cpu_bound"] = cpuBound;
  std::sort(ratios.begin(), ratios.end());
  std::printf(
      "tracing overhead (1f1b p=2 m=8, mlp H=%d): step %.3f ms recording vs %.3f ms without a "
      "writer; median ratio of %d back-to-back pairs %.4f (goal <= 1.02; pairs from %.3f to "
      "%.3f); writing costs %.3f ms CPU per step: ratio at most %.4f\n",
      hidden, median(on) * 1e3, median(off) * 1e3, pairs, ratio, ratios.front(), ratios.back(),
      median(writerCpu) * 1e3, cpuBound);
}

void BM_TracingOverhead(benchmark::State& state) {
  tracingOverhead(state, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_TracingOverhead)->Arg(128)->Arg(32)->Iterations(1)->Unit(benchmark::kMillisecond);

// --- simulator fidelity -----------------------------------------------------------------------

struct StepFigures {
  double stepNs = 0;  // median step span
  double bubble = 0;  // median step bubble ratio
};

// Mean duration (ms) of each compute kind per rank, e.g. "r0 F 4.10 I 4.02 W 2.51 OPT 0.31".
std::string meanOpTimes(const trace::RunTrace& run) {
  std::string text;
  for (const auto& rank : run.ranks) {
    const trace::OpColumns& ops = rank.lane(trace::Lane::Compute);
    text += " r" + std::to_string(rank.info.rank);
    for (OpKind kind : {OpKind::F, OpKind::B, OpKind::I, OpKind::W, OpKind::OPT}) {
      double sum = 0;
      int n = 0;
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops.kind[i] == kind) {
          sum += static_cast<double>(ops.duration(i));
          ++n;
        }
      if (n == 0) continue;
      char buf[48];
      std::snprintf(buf, sizeof buf, " %s %.2f", std::string(trace::opKindName(kind)).c_str(),
                    sum / n / 1e6);
      text += buf;
    }
  }
  return text;
}

StepFigures figures(const trace::RunAnalysis& a) {
  std::vector<double> spans, bubbles;
  for (const auto& s : a.steps) {
    spans.push_back(static_cast<double>(s.span_ns()));
    bubbles.push_back(s.bubble_ratio);
  }
  return {median(spans), median(bubbles)};
}

struct Trial {
  double stepError[2] = {0, 0};     // (predicted − measured) / measured, per calibration mode
  double bubblePoints[2] = {0, 0};  // predicted − measured, in percentage points
};

// One trial: calibrate alone (1 thread) and under the run's contention (2 threads), run the plan
// once recording, and compare both predictions with it.
std::optional<Trial> fidelityTrial(const BuiltPlan& built, const std::string& schedule, bool print,
                                   benchmark::State& state) {
  const ModelConfig model = benchModel();
  std::optional<CostModel> costs[2];
  std::optional<SimResult> sims[2];
  for (int mode = 0; mode < 2; ++mode) {
    CalibrationOptions options;
    options.threads = mode == 0 ? 1 : kRanks;
    auto cost = calibrateCpuCosts(model, benchOptimizer(), options);
    if (!cost) {
      state.SkipWithError(cost.error().c_str());
      return std::nullopt;
    }
    auto sim = simulate(built.plan, built.graph, *cost);
    if (!sim) {
      state.SkipWithError(sim.error().c_str());
      return std::nullopt;
    }
    costs[mode] = std::move(*cost);
    sims[mode] = std::move(*sim);
  }
  const std::string path = tempPath("fidelity");
  removeTrace(path);
  Trial trial;
  {
    auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
    auto writer = trace::TraceWriter::begin(*store, header(built, schedule));
    if (!store || !writer) {
      state.SkipWithError("cannot open the trace file");
      return std::nullopt;
    }
    if (!timedRun(built, model, &*writer, state)) return std::nullopt;
    const std::int64_t measuredId = writer->runId();
    (void)writer->finish(trace::RunStatus::Complete);
    auto measured = trace::loadRun(*store, measuredId);
    if (!measured) {
      state.SkipWithError(measured.error().c_str());
      return std::nullopt;
    }
    const StepFigures m = figures(trace::analyzeRun(*measured));
    if (print)
      std::printf("  mean op ms, measured:                %s\n", meanOpTimes(*measured).c_str());
    for (int mode = 0; mode < 2; ++mode) {
      auto withCosts = std::make_shared<BuiltPlan>(built);
      withCosts->cost = *costs[mode];
      RunPlanRequest request;
      request.built = withCosts;
      request.name = schedule + " (predicted)";
      request.configJson = "{}";
      auto saved = savePreview(previewOf(request, *sims[mode]), {"", &*store});
      auto predicted = trace::loadRun(*store, saved && saved->runId ? *saved->runId : -1);
      if (!predicted) {
        state.SkipWithError(predicted.error().c_str());
        return std::nullopt;
      }
      const StepFigures p = figures(trace::analyzeRun(*predicted));
      trial.stepError[mode] = (p.stepNs - m.stepNs) / m.stepNs;
      trial.bubblePoints[mode] = (p.bubble - m.bubble) * 100;
      if (print)
        std::printf(
            "  %s calibration: step %.2f ms predicted vs %.2f ms measured (%+.2f %%), bubble "
            "%.2f %% vs %.2f %% (%+.2f points)\n    mean op ms, predicted:%s\n",
            mode == 0 ? "1-thread" : "2-thread", p.stepNs / 1e6, m.stepNs / 1e6,
            trial.stepError[mode] * 100, p.bubble * 100, m.bubble * 100, trial.bubblePoints[mode],
            meanOpTimes(*predicted).c_str());
    }
  }
  removeTrace(path);
  if (print) {
    const LayerCost& mid = costs[0]->layers[1];
    std::printf(
        "  calibrated layer 1 (1 thread): F %.1f us, I %.1f us, W %.1f us, act %lld B, params %lld "
        "B; optimizer %.3f ns/param byte\n",
        mid.fwdNs / 1e3, mid.inputGradNs / 1e3, mid.weightGradNs / 1e3,
        static_cast<long long>(mid.actBytes), static_cast<long long>(mid.paramBytes),
        costs[0]->optimizerNsPerParamByte);
  }
  return trial;
}

void fidelity(benchmark::State& state, const std::string& schedule) {
  const int steps = 6, trials = 3;
  auto built = plan(schedule, steps, state);
  if (!built) return;
  for (auto _ : state) {
    std::printf("fidelity %s p=2 m=8 (mlp H=%d, L=%d), %d trials:\n", schedule.c_str(),
                benchModel().hidden, kLayers, trials);
    std::vector<double> step[2], bubble[2];
    for (int t = 0; t < trials; ++t) {
      auto trial = fidelityTrial(*built, schedule, t == 0, state);
      if (!trial) return;
      for (int mode = 0; mode < 2; ++mode) {
        step[mode].push_back(std::fabs(trial->stepError[mode]) * 100);
        bubble[mode].push_back(std::fabs(trial->bubblePoints[mode]));
      }
    }
    for (int mode = 0; mode < 2; ++mode) {
      const char* tag = mode == 0 ? "1thread" : "2thread";
      state.counters[std::string("step_err_pct_") + tag] = median(step[mode]);
      state.counters[std::string("bubble_diff_pts_") + tag] = median(bubble[mode]);
      std::printf(
          "  => %s calibration, median over trials: |step error| %.2f %% (goal <= 5 %%, trials "
          "%.1f/%.1f/%.1f), |bubble difference| %.2f points (goal <= 3)\n",
          mode == 0 ? "1-thread" : "2-thread", median(step[mode]), step[mode][0], step[mode][1],
          step[mode][2], median(bubble[mode]));
    }
  }
}

void BM_Fidelity_1f1b(benchmark::State& state) {
  fidelity(state, "1f1b");
}
void BM_Fidelity_zbh1(benchmark::State& state) {
  fidelity(state, "zb-h1");
}
BENCHMARK(BM_Fidelity_1f1b)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Fidelity_zbh1)->Iterations(1)->Unit(benchmark::kMillisecond);

// --- kernels vs the model -----------------------------------------------------------------------

// GFLOP/s of single-threaded sgemm C[m×n] = A[m×k]·B[k×n], median of `repeats`.
double sgemmGflops(int m, int n, int k, int repeats) {
  std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f),
      b(static_cast<std::size_t>(k) * n, 0.25f), c(static_cast<std::size_t>(m) * n);
  std::vector<double> rates;
  for (int r = 0; r < repeats + 1; ++r) {
    const auto t0 = Clock::now();
    kernels::sgemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (r > 0) rates.push_back(2.0 * m * n * k / s / 1e9);
  }
  benchmark::DoNotOptimize(c.data());
  return median(rates);
}

void BM_ModelVsGemmPeak(benchmark::State& state) {
  kernels::setBlasThreads(1);
  const ModelConfig model = benchModel();
  StageOptions options;
  options.optimizer = benchOptimizer();
  options.microbatchesPerStep = kMicrobatches;
  auto stage = StageModel::create(model, options);
  if (!stage) {
    state.SkipWithError(stage.error().c_str());
    return;
  }
  StageModel& whole = **stage;
  const int rows = model.rows(), h = model.hidden, f = model.ffnHidden();
  // Six GEMMs per layer and micro-batch (two each in F, I and W), 2·rows·H·F flops each.
  const double flopsPerMb = 6.0 * 2.0 * rows * h * f * model.layers;
  std::vector<double> modelRates;
  int step = 0;
  for (auto _ : state) {
    for (int rep = 0; rep < 4; ++rep, ++step) {
      const auto t0 = Clock::now();
      for (int mb = 0; mb < kMicrobatches; ++mb)
        if (!whole.forward({step, mb}, nullptr, nullptr).ok() ||
            !whole.backward({step, mb}, nullptr, nullptr).ok()) {
          state.SkipWithError("the unpipelined model failed");
          return;
        }
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      whole.optimizerStep();
      if (rep > 0) modelRates.push_back(flopsPerMb * kMicrobatches / s / 1e9);
    }
  }
  const double modelRate = median(modelRates);
  const double peak = sgemmGflops(1024, 1024, 1024, 5);
  const double shapePeak = sgemmGflops(rows, f, h, 50);
  state.counters["model_gflops"] = modelRate;
  state.counters["sgemm_peak_gflops"] = peak;
  state.counters["sgemm_model_shape_gflops"] = shapePeak;
  state.counters["ratio_to_peak"] = modelRate / peak;
  // Issue 16's goal: the model's GEMM-work rate against sgemm at the model's own shape (>= 0.6).
  state.counters["model_over_sgemm"] = modelRate / shapePeak;
  std::printf("kernels: %s, elementwise %s\n", kernels::blasCoreName().c_str(),
              kernels::simdLevel().c_str());
  std::printf(
      "kernels: unpipelined model (mlp H=%d, %d rows, L=%d, F+I+W per micro-batch) %.2f GFLOP/s "
      "of GEMM work vs one rank's OpenBLAS sgemm peak %.2f GFLOP/s (1024^3): ratio %.3f; the "
      "model's GEMM shape %dx%dx%d alone runs at %.2f GFLOP/s (ratio %.3f)\n",
      h, rows, model.layers, modelRate, peak, modelRate / peak, rows, f, h, shapePeak,
      modelRate / shapePeak);
}
BENCHMARK(BM_ModelVsGemmPeak)->Iterations(1)->Unit(benchmark::kMillisecond);

// Piper on the cpu backend (issue 35): the piper preset's shape (GPipe p 4 x 2 expert-parallel
// replicas, m 16) training a mixture of experts, each all-to-all overlapped (two lanes a rank)
// against serial, over an emulated link of the given latency. Ratio < 1: overlap is faster.
void BM_PiperOverlapOnCpu(benchmark::State& state) {
  const double latencyUs = static_cast<double>(state.range(0));
  std::vector<double> seconds[2];
  for (auto _ : state) {
    for (int mode = 0; mode < 2; ++mode) {
      PlanSpec spec;
      spec.schedule = "gpipe";
      spec.stages = 4;
      spec.microbatches = 16;
      spec.dataParallel = 2;
      spec.steps = 4;
      spec.a2aMb = 16;
      spec.a2a = mode == 0 ? "overlap" : "serial";
      spec.uniform.linkGbps = 100;
      auto built = buildPlan(spec);
      if (!built) return state.SkipWithError(built.error().c_str());
      CpuRunOptions options;
      options.model.block = BlockType::Moe;
      options.optimizer = benchOptimizer();
      options.linkLatencyUs = latencyUs;
      std::vector<Clock::time_point> written;
      options.onStepWritten = [&](int) { written.push_back(Clock::now()); };
      auto run = runOnCpuThreads(built->plan, built->graph, options, nullptr);
      if (!run || run->status != trace::RunStatus::Complete || written.size() < 2)
        return state.SkipWithError(run ? run->message.c_str() : run.error().c_str());
      seconds[mode].push_back(
          std::chrono::duration<double>(written.back() - written.front()).count() /
          static_cast<double>(written.size() - 1));
    }
  }
  const double overlapped = median(seconds[0]), serial = median(seconds[1]);
  state.counters["overlap_ms"] = overlapped * 1e3;
  state.counters["serial_ms"] = serial * 1e3;
  state.counters["overlap_over_serial"] = overlapped / serial;
  std::printf(
      "piper on cpu (moe, gpipe p4 x dp2, m16, link latency %.0f us): overlapped %.1f ms "
      "a step vs serial %.1f ms: ratio %.3f\n",
      latencyUs, overlapped * 1e3, serial * 1e3, overlapped / serial);
}
BENCHMARK(BM_PiperOverlapOnCpu)
    ->Arg(0)
    ->Arg(1000)
    ->Arg(4000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
