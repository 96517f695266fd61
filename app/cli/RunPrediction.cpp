#include "app/cli/RunPrediction.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <thread>

#include "app/cli/CliCommon.h"
#include "runtime/cost/CostJson.h"
#include "runtime/exec/Calibrate.h"
#include "runtime/sim/SimWriter.h"
#include "trace/JsonWriter.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {
namespace {

bool anyCap(const runtime::CostModel& cost, int ranks) {
  for (int r = 0; r < ranks; ++r)
    if (cost.capacityOf(r)) return true;
  return false;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.*f", digits, v);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  // Column widths count characters, not bytes (µ is two bytes).
  std::size_t chars = 0;
  for (unsigned char c : s)
    chars += (c & 0xC0) != 0x80;
  if (chars < width) s.append(width - chars, ' ');
  return s;
}

void printRow(const std::string& what, const std::string& predicted, const std::string& measured,
              const std::string& error) {
  std::cout << "  " << pad(what, 15) << pad(predicted, 14) << pad(measured, 14) << error << '\n';
}

void printRatioRow(const char* what, const std::optional<double>& p,
                   const std::optional<double>& m) {
  if (!p || !m) return;
  printRow(what, trace::formatPercent(*p), trace::formatPercent(*m),
           fixed((*p - *m) * 100.0, 2) + " points");
}

}  // namespace

Result<std::optional<RunPrediction>> predictCpuRun(const runtime::BuiltPlan& built,
                                                   const runtime::CpuRunOptions& options,
                                                   const PredictionRequest& request) {
  const runtime::Plan& plan = built.plan;
  const bool calibrate = request.calibrate && (request.compareSim || !request.calibrateOut.empty());
  const bool capped = anyCap(built.cost, plan.numRanks);
  if (!calibrate && !capped && !request.compareSim) return std::optional<RunPrediction>{};

  runtime::ModelConfig model = options.model;
  model.layers = plan.numLayers;
  RunPrediction p;
  if (calibrate) {
    // As many threads as ranks compute at once (up to the cores): the timings then include the
    // slowdown ranks cause each other, as in the run.
    runtime::CalibrationOptions calibration;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    calibration.threads = std::clamp(plan.numRanks, 1, cores);
    std::cerr << "pipescope-cli: calibrating " << model.layers << " layers on the cpu backend ("
              << calibration.threads << (calibration.threads == 1 ? " thread" : " threads")
              << ")\n";
    auto cost = runtime::calibrateCpuCosts(model, options.optimizer, calibration);
    if (!cost) return Error{"calibration: " + cost.error()};
    p.cost = std::move(*cost);
    p.calibrated = true;
  } else {
    // Sizes from the real model, times from the plan's cost model (they only move lifetimes).
    auto sizes = runtime::cpuModelSizes(model, options.optimizer);
    if (!sizes) return std::move(sizes).takeError();
    p.cost = std::move(*sizes);
    for (std::size_t l = 0; l < p.cost.layers.size() && l < built.cost.layers.size(); ++l) {
      p.cost.layers[l].fwdNs = built.cost.layers[l].fwdNs;
      p.cost.layers[l].inputGradNs = built.cost.layers[l].inputGradNs;
      p.cost.layers[l].weightGradNs = built.cost.layers[l].weightGradNs;
    }
    p.cost.optimizerNsPerParamByte = built.cost.optimizerNsPerParamByte;
  }
  // What the cpu backend emulates: every rank at its real speed, one link setting for all pairs.
  for (const auto& rank : built.cost.ranks) {
    runtime::RankCost r;
    r.memoryCapacityBytes = rank.memoryCapacityBytes;
    p.cost.ranks.push_back(r);
  }
  if (options.linkGbps && *options.linkGbps > 0)
    p.cost.defaultLink.bytesPerNs = *options.linkGbps / 8.0;
  p.cost.defaultLink.latencyNs = options.linkLatencyUs * 1e3;

  auto sim = runtime::simulate(plan, built.graph, p.cost);
  if (!sim) return Error{"predicting the run: " + sim.error()};
  p.sim = std::move(*sim);
  if (auto caps = runtime::checkMemoryCaps(p.cost, p.sim.peakMemory); !caps)
    return Error{caps.error() + " (predicted for this model)"};
  if (calibrate && !request.calibrateOut.empty()) {
    // The file holds the model's own costs: no ranks or links (the simulator's flags add them).
    runtime::CostModel file = p.cost;
    file.ranks.clear();
    file.defaultLink = {};
    PS_TRY(runtime::saveCostJson(file, request.calibrateOut,
                                 runtime::calibrationSource(model, options.optimizer)));
    std::cerr << "pipescope-cli: wrote " << request.calibrateOut << '\n';
  }
  return std::optional<RunPrediction>(std::move(p));
}

int reportPrediction(trace::TraceStore& store, std::int64_t measuredRunId,
                     const runtime::BuiltPlan& built, const RunPrediction& prediction,
                     const std::string& name) {
  trace::JsonWriter w;
  w.beginObject();
  w.key("schedule").value(built.plan.schedule);
  w.key("chunks").value(built.plan.chunks);
  w.key("predicts_run").value(measuredRunId);
  w.key("plan").raw(built.configJson);
  w.key("calibrated_costs").raw(runtime::writeCostJson(prediction.cost));
  w.endObject();
  auto simId = runtime::writeSimulation(store, built.plan, prediction.cost, prediction.sim,
                                        name + " (predicted)", w.str());
  if (!simId) return fail(simId.error(), kExitRunFailed);
  auto measured = trace::loadRun(store, measuredRunId);
  if (!measured) return fail(measured.error(), kExitRunFailed);
  auto predicted = trace::loadRun(store, *simId);
  if (!predicted) return fail(predicted.error(), kExitRunFailed);
  const auto m = trace::analyzeRun(*measured);
  const auto p = trace::analyzeRun(*predicted);
  std::cout << "run " << *simId << ": " << name << " (predicted)\n"
            << "predicted (run " << *simId << ") vs measured (run " << measuredRunId << "):\n";
  printRow("", "predicted", "measured", "error");
  if (p.step_time_ns && m.step_time_ns && *m.step_time_ns > 0) {
    const double rel = static_cast<double>(*p.step_time_ns - *m.step_time_ns) /
                       static_cast<double>(*m.step_time_ns);
    printRow("step time", trace::formatDuration(*p.step_time_ns),
             trace::formatDuration(*m.step_time_ns), fixed(rel * 100.0, 2) + " %");
  }
  printRatioRow("bubble", p.bubble_ratio, m.bubble_ratio);
  printRatioRow("steady bubble", p.steady_bubble_ratio, m.steady_bubble_ratio);
  return kExitOk;
}

}  // namespace ps::cli
