#include "runtime/run/RunPlan.h"

#include <algorithm>
#include <charconv>

#include "runtime/cuda/CudaBackend.h"
#include "runtime/run/BackendRefusals.h"
#include "runtime/run/Backends.h"
#include "runtime/run/ModelRun.h"
#include "runtime/run/TokenLayoutsOf.h"
#include "runtime/sim/SimRows.h"

namespace ps::runtime {

std::string withFittedFrom(std::string configJson, std::int64_t run) {
  const auto open = configJson.find('{');
  if (open == std::string::npos) return configJson;
  const bool empty =
      configJson.find_first_not_of(" \t\r\n", open + 1) == configJson.find('}', open);
  configJson.insert(open + 1, "\"fitted_from_run\":" + std::to_string(run) + (empty ? "" : ","));
  return configJson;
}

std::optional<std::int64_t> fittedFromRun(std::string_view configJson) {
  constexpr std::string_view key = "\"fitted_from_run\":";
  const auto at = configJson.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::int64_t value = 0;
  const char* first = configJson.data() + at + key.size();
  const auto [end, ec] = std::from_chars(first, configJson.data() + configJson.size(), value);
  if (ec != std::errc() || end == first) return std::nullopt;
  return value;
}

namespace {

std::string lineage(const RunPlanRequest& request, std::string configJson) {
  return request.fittedFrom ? withFittedFrom(std::move(configJson), *request.fittedFrom)
                            : configJson;
}

void report(const RunControl& control, RunStage stage, int done, int total) {
  if (control.progress) control.progress(stage, done, total);
}

bool cancelRequested(const RunControl& control) {
  return control.cancel && control.cancel->load();
}

RunPlanResult endedAs(RunPlanResult result, trace::RunStatus status, std::string message) {
  result.status = status;
  result.message = std::move(message);
  return result;
}

bool anyCap(const CostModel& cost, int ranks) {
  for (int r = 0; r < ranks; ++r)
    if (cost.capacityOf(r)) return true;
  return false;
}

// The file, opened only now that every check has passed (or the caller's open store).
Result<trace::TraceStore*> openTarget(const RunTarget& target, RunPlanResult& result) {
  if (target.store) return target.store;
  auto opened = trace::TraceStore::open(target.path, trace::TraceStore::Mode::ReadWrite);
  if (!opened) return std::move(opened).takeError();
  result.store.emplace(std::move(*opened));
  return &*result.store;
}

// The one writer of a simulated run (runPlan's sim backend, savePreview): opens the target, then
// writes the run; how it ended goes into `result`. An error: the file could not be opened.
Status writeSimulated(const trace::RunHeader& header, const SimResult& sim, int steps,
                      const RunTarget& target, const RunControl& control, RunPlanResult& result) {
  if (cancelRequested(control)) {
    result = endedAs(std::move(result), trace::RunStatus::Cancelled, "cancelled before writing");
    return {};
  }
  auto store = openTarget(target, result);
  if (!store) return Error{store.error()};
  report(control, RunStage::Write, 0, 1);
  auto written = writeSimRun(**store, header, sim, steps, control.cancel, control.begun);
  if (!written) {
    result = endedAs(std::move(result), trace::RunStatus::Failed, written.error());
    return {};
  }
  result.runId = written->runId;
  if (written->status != trace::RunStatus::Complete) {
    result = endedAs(std::move(result), written->status, written->message);
    return {};
  }
  report(control, RunStage::Write, 1, 1);
  return {};
}

Result<RunPlanResult> runSimulation(const RunPlanRequest& request, const RunTarget& target,
                                    const RunControl& control, RunPlanResult result) {
  const BuiltPlan& built = *result.built;
  result.name = request.name.empty() ? planRunName(built.plan) : request.name;
  report(control, RunStage::Run, 0, 1);
  bool overCap = false;
  auto sim = simulatePlan(built, control.cancel, &overCap);
  if (cancelRequested(control))
    return endedAs(std::move(result), trace::RunStatus::Cancelled, "cancelled while simulating");
  if (!sim && overCap) return std::move(sim).takeError();  // refused: nothing written
  if (!sim) return endedAs(std::move(result), trace::RunStatus::Failed, sim.error());
  report(control, RunStage::Run, 1, 1);
  result.sim = std::move(*sim);
  if (!request.write) return result;
  const trace::RunHeader header = simRunHeader(request, result);
  PS_TRY(writeSimulated(header, *result.sim, built.plan.steps, target, control, result));
  return result;
}

// The memory check of a model backend: the simulator's, with the model's own bytes.
Status checkModelMemory(const RunPlanRequest& request, const BuiltPlan& built,
                        const CpuRunOptions& options) {
  if (!anyCap(built.cost, built.plan.numRanks)) return {};
  auto cost = modelCostModel(built, options, request.calibrated ? &*request.calibrated : nullptr);
  if (!cost) return std::move(cost).takeError();
  auto sim = simulate(built.plan, built.graph, *cost);
  if (!sim) return Error{"predicting the run's memory: " + sim.error()};
  if (auto caps = checkMemoryCaps(*cost, sim->peakMemory); !caps)
    return Error{caps.error() + " (predicted for this model)"};
  return {};
}

// Opens the file and begins the run where this process writes. A failure is tagged 'R' when
// nothing was written (refused) or 'F' (a run that failed), so that every process of a
// collective run (ExecutorOverride::agree) ends the same way.
Status beginRun(const RunPlanRequest& request, const RunTarget& target,
                const trace::RunHeader& header, const RunControl& control, RunPlanResult& result,
                std::optional<trace::TraceWriter>& writer) {
  if (!request.write) return {};
  auto store = openTarget(target, result);
  if (!store) return Error{"R" + store.error()};
  auto begun = trace::TraceWriter::begin(**store, header);
  if (!begun) return Error{"F" + begun.error()};
  writer.emplace(std::move(*begun));
  if (control.begun) control.begun(writer->runId());
  return {};
}

Result<RunPlanResult> runModel(const RunPlanRequest& request, const RunTarget& target,
                               const RunControl& control, RunPlanResult result) {
  const BuiltPlan& built = *result.built;
  const Plan& plan = built.plan;
  const BackendInfo& row = backendInfo(request.backend);  // what it runs on, and its hooks
  CpuRunOptions options = request.exec;
  fitModelToPlan(plan, options.model);
  // --rank-speed: the cpu backend stretches a slow rank's compute (the cuda one cannot).
  if (row.prepare) row.prepare(built, options);
  auto tokens = checkModelRequest(request.backend, request.executor.run != nullptr, built, options);
  if (!tokens) return std::move(tokens).takeError();
  options.tokens = *tokens;
  PS_TRY(checkModelMemory(request, built, options));
  // The backend's own refusals (the GPUs' memory, a channel order that could deadlock) come
  // before the file is opened too. An MPI job checks per process instead.
  if (row.checkBeforeOpen && !request.executor.run) PS_TRY(row.checkBeforeOpen(plan, options));
  if (cancelRequested(control))
    return endedAs(std::move(result), trace::RunStatus::Cancelled, "cancelled before it started");

  const std::string backend(row.name);
  result.name = request.name.empty() ? planRunName(plan) + " " + backend + " " +
                                           std::string(blockTypeName(options.model.block))
                                     : request.name;
  std::optional<CudaPlacementNote> placement;
  if (row.placementNote) placement = row.placementNote(plan.numRanks, options.smSplit);
  auto header = planRunHeader(
      plan, built.cost, request.source.empty() ? backend : request.source, result.name,
      lineage(request, request.configJson.empty()
                           ? modelRunConfigJson(built.configJson, request.backend, options,
                                                placement ? &*placement : nullptr)
                           : request.configJson));
  header.layers.clear();   // the plan's cost layers are a guess, not this model's
  if (request.calibrated)  // these are this model's
    header.layers = planRunHeader(plan, *request.calibrated, backend, result.name, {}).layers;
  if (row.describeRanks) row.describeRanks(header);

  std::optional<trace::TraceWriter> writer;
  Status setup = beginRun(request, target, header, control, result, writer);
  if (request.executor.agree) setup = request.executor.agree(setup);
  if (!setup) {
    const std::string& tagged = setup.error();
    const std::string message = tagged.empty() ? tagged : tagged.substr(1);
    if (tagged.empty() || tagged.front() != 'F') return Error{message};
    return endedAs(std::move(result), trace::RunStatus::Failed, message);
  }

  if (control.cancel) options.cancel = control.cancel;
  options.onStepWritten = [&](int step) {
    report(control, RunStage::Run, step + 1, plan.steps);
    if (request.exec.onStepWritten) request.exec.onStepWritten(step);
  };
  report(control, RunStage::Run, 0, plan.steps);
  trace::TraceWriter* out = writer ? &*writer : nullptr;
  auto ran = request.executor.run ? request.executor.run(plan, built.graph, options, out, header)
                                  : row.execute(plan, built.graph, options, out);
  report(control, RunStage::Write, 0, 1);
  if (ran) {
    result.status = ran->status;
    result.message = ran->message;
    result.exec = std::move(*ran);
  } else {
    result.status = trace::RunStatus::Failed;
    result.message = ran.error();
    result.setupFailed = true;
  }
  if (writer) {
    result.runId = writer->runId();
    if (auto finished = writer->finish(result.status, result.message); !finished)
      if (result.status == trace::RunStatus::Complete) {
        result.status = trace::RunStatus::Failed;
        result.message = finished.error();
      }
    writer.reset();
  }
  report(control, RunStage::Write, 1, 1);
  return result;
}

}  // namespace

std::string_view runStageName(RunStage stage) {
  switch (stage) {
    case RunStage::Plan:
      return "plan";
    case RunStage::Run:
      return "run";
    case RunStage::Write:
      return "write";
  }
  return "plan";
}

Status backendAvailable(Backend backend) {
  const BackendAvailability here = backendInfo(backend).available();
  if (!here.ok) return Error{here.message};
  return {};
}

Result<std::shared_ptr<const TokenLayouts>> checkModelRequest(Backend backend, bool processes,
                                                              const BuiltPlan& built,
                                                              const CpuRunOptions& options) {
  ModelConfig model = options.model;
  fitModelToPlan(built.plan, model);
  // DynaPipe's groups and TeraPipe's slices: micro-batches of their own shapes.
  auto tokens = tokenLayoutsOf(built, model);
  // The GPUs train one shape: say so before what the cpu backend would need for the layouts.
  if (!tokens && !backendInfo(backend).limits.shapedMicrobatches)
    PS_TRY(checkPlanFeatures(backend, processes, built.plan, nullptr));
  if (!tokens) return Error{tokens.error()};
  // What this backend never runs comes first: a device would not change it.
  PS_TRY(checkPlanFeatures(backend, processes, built.plan, *tokens));
  PS_TRY(checkModelOptions(backend, options));
  PS_TRY(checkModelFeatures(built.plan, model));
  PS_TRY(backendAvailable(backend));
  return std::move(*tokens);
}

trace::RunHeader simRunHeader(const RunPlanRequest& request, const RunPlanResult& result) {
  const BuiltPlan& built = *result.built;
  auto header = planRunHeader(
      built.plan, built.cost, request.source.empty() ? "sim" : request.source, result.name,
      lineage(request, request.configJson.empty() ? built.configJson : request.configJson));
  header.info.created_utc = trace::utcNowIso8601();
  return header;
}

Result<RunPlanResult> savePreview(const PlanPreview& preview, const RunTarget& target,
                                  const RunControl& control) {
  RunPlanResult result;
  result.built = preview.built;
  result.name = preview.header.info.name;
  PS_TRY(writeSimulated(preview.header, *preview.sim, preview.built->plan.steps, target, control,
                        result));
  return result;
}

Result<RunPlanResult> runPlan(const RunPlanRequest& request, const RunTarget& target,
                              const RunControl& control) {
  RunPlanResult result;
  if (cancelRequested(control))
    return endedAs(std::move(result), trace::RunStatus::Cancelled, "cancelled before it started");
  report(control, RunStage::Plan, 0, 1);
  if (request.built) {
    result.built = request.built;
  } else {
    auto built = buildPlan(request.spec, control.cancel);
    // --mapping auto's search stops on the flag with an error: a cancel, not a refusal.
    if (!built && cancelRequested(control))
      return endedAs(std::move(result), trace::RunStatus::Cancelled,
                     "cancelled while building the plan");
    if (!built) return std::move(built).takeError();
    result.built = std::make_shared<const BuiltPlan>(std::move(*built));
  }
  report(control, RunStage::Plan, 1, 1);
  if (cancelRequested(control))
    return endedAs(std::move(result), trace::RunStatus::Cancelled,
                   "cancelled while building the plan");
  if (!backendInfo(request.backend).trainsModel)
    return runSimulation(request, target, control, std::move(result));
  return runModel(request, target, control, std::move(result));
}

}  // namespace ps::runtime
