#include "app/cli/RunPrediction.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <thread>

#include "app/cli/CliCommon.h"
#include "runtime/cost/CostJson.h"
#include "runtime/cuda/CudaBackend.h"
#include "runtime/exec/Calibrate.h"
#include "runtime/run/BackendDescription.h"
#include "runtime/run/Backends.h"
#include "runtime/run/ModelRun.h"
#include "runtime/run/RunPlan.h"
#include "runtime/run/SharedGpuPrediction.h"
#include "trace/FileText.h"
#include "trace/JsonWriter.h"
#include "trace/TerminalText.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"

namespace ps::cli {
namespace {

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

// The median span of steps 1.. (>= 2 steps): what a steady step takes. Step 0 carries one-time
// costs a prediction does not model (cuBLAS handles, first allocations, the first batches made
// inline): on the H200 the demo's step 0 took 196 ms and steps 1-3 27-34 ms.
std::optional<std::int64_t> steadyStepNs(const trace::RunAnalysis& a) {
  if (a.steps.size() < 2) return std::nullopt;
  std::vector<std::int64_t> spans;
  for (std::size_t i = 1; i < a.steps.size(); ++i)
    spans.push_back(a.steps[i].span_ns());
  const auto mid = spans.begin() + static_cast<std::ptrdiff_t>(spans.size() / 2);
  std::nth_element(spans.begin(), mid, spans.end());
  return *mid;
}

void printTimeRow(const char* what, const std::optional<std::int64_t>& p,
                  const std::optional<std::int64_t>& m) {
  if (!p || !m || *m <= 0) return;
  const double rel = static_cast<double>(*p - *m) / static_cast<double>(*m);
  printRow(what, trace::formatDuration(*p), trace::formatDuration(*m),
           fixed(rel * 100.0, 2) + " %");
}

}  // namespace

std::string predictionPlacementNote(runtime::Backend backend, int ranks, bool smSplit) {
  const runtime::BackendInfo& row = runtime::backendInfo(backend);
  return row.predictionNote ? row.predictionNote(ranks, smSplit) : std::string();
}

Result<std::optional<runtime::CostModel>> calibrateForRun(const runtime::BuiltPlan& built,
                                                          const runtime::CpuRunOptions& options,
                                                          const PredictionRequest& request) {
  if (!request.calibrate || (!request.compareSim && request.calibrateOut.empty()))
    return std::optional<runtime::CostModel>{};
  // Refused before calibrating, not after: a FIFO or a folder fails in a second, not minutes.
  if (!request.calibrateOut.empty())
    PS_TRY(trace::checkRegularOrAbsent(request.calibrateOut, "--calibrate-out file"));
  runtime::ModelConfig model = options.model;
  model.layers = built.plan.numLayers;
  const runtime::BackendInfo& row = runtime::backendInfo(request.backend);
  if (!row.calibrate || !row.calibrationPlace)
    return Error{std::string(request.compareSim ? "--compare-sim" : "--calibrate-out") + ": the " +
                 std::string(row.name) + " backend cannot time the model's layers"};
  const int ranks = built.plan.numRanks;
  const runtime::BackendCalibrationPlace place = row.calibrationPlace(ranks, options);
  std::cerr << "pipescope-cli: calibrating " << model.layers << " layers on the " << row.name
            << " backend (" << place.how << ")\n";
  if (request.compareSim)
    if (const std::string note = predictionPlacementNote(request.backend, ranks, options.smSplit);
        !note.empty())
      std::cerr << "pipescope-cli: note: " << note << '\n';
  Result<runtime::CostModel> cost = row.calibrate(model, options, ranks);
  const std::string& where = place.where;
  if (!cost) return Error{"calibration: " + cost.error()};
  if (!request.calibrateOut.empty()) {
    // The file holds the model's own costs: no ranks or links (the simulator's flags add them).
    PS_TRY(runtime::saveCostJson(*cost, request.calibrateOut,
                                 runtime::calibrationSource(model, options.optimizer, where)));
    std::cerr << "pipescope-cli: wrote " << request.calibrateOut << '\n';
  }
  return std::optional<runtime::CostModel>(std::move(*cost));
}

int reportPrediction(trace::TraceStore& store, std::int64_t measuredRunId,
                     const std::shared_ptr<const runtime::BuiltPlan>& built,
                     const runtime::CpuRunOptions& options, const runtime::CostModel& calibrated,
                     const std::string& name, const std::string& placementNote,
                     const std::atomic<bool>* cancel) {
  // What the backend emulates, with the model's measured costs.
  auto cost = runtime::modelCostModel(*built, options, &calibrated);
  if (!cost) return fail(cost.error(), kExitRunFailed);
  auto predicted = std::make_shared<runtime::BuiltPlan>(*built);
  predicted->cost = std::move(*cost);
  trace::JsonWriter w;
  w.beginObject();
  w.key("schedule").value(built->plan.schedule);
  w.key("chunks").value(built->plan.chunks);
  w.key("predicts_run").value(measuredRunId);
  w.key("plan").raw(built->configJson);
  w.key("calibrated_costs").raw(runtime::writeCostJson(predicted->cost));
  w.endObject();
  runtime::RunPlanRequest request;
  request.built = predicted;
  request.backend = runtime::Backend::Sim;
  request.name = name + " (predicted)";
  request.configJson = w.str();
  runtime::RunTarget target;
  target.store = &store;
  runtime::RunControl control;
  control.cancel = cancel;
  auto sim = runtime::runPlan(request, target, control);
  if (!sim) return fail(sim.error(), kExitRunFailed);
  if (sim->status != trace::RunStatus::Complete) return fail(sim->message, kExitRunFailed);
  const std::int64_t simId = *sim->runId;
  auto measured = trace::loadRun(store, measuredRunId);
  if (!measured) return fail(measured.error(), kExitRunFailed);
  auto predictedRun = trace::loadRun(store, simId);
  if (!predictedRun) return fail(predictedRun.error(), kExitRunFailed);
  const auto m = trace::analyzeRun(*measured);
  const auto p = trace::analyzeRun(*predictedRun);
  std::cout << "run " << simId << ": " << trace::terminalSafe(name) << " (predicted)\n"
            << "predicted (run " << simId << ") vs measured (run " << measuredRunId << "):\n";
  printRow("", "predicted", "measured", "error");
  printTimeRow("step time", p.step_time_ns, m.step_time_ns);
  printTimeRow("steady step", steadyStepNs(p), steadyStepNs(m));
  printRatioRow("bubble", p.bubble_ratio, m.bubble_ratio);
  printRatioRow("steady bubble", p.steady_bubble_ratio, m.steady_bubble_ratio);
  // Beside the errors it explains: ranks sharing a GPU are predicted as if each had one.
  if (!placementNote.empty()) std::cout << "note: " << placementNote << '\n';
  return kExitOk;
}

}  // namespace ps::cli
