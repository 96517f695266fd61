#pragma once
// The one way to run a plan (DESIGN §3). Every caller (pipescope-cli sim, run and torch-csv
// import, the app's Run button, demo and imports) hands a plan request, a backend, where to write,
// progress and a cancel flag to runPlan, which does, once:
//   build + validate the plan → check the plan's features, the model options and that the
//   backend can run here (a CUDA device), in that order (checkModelRequest) → check each rank's
//   memory against its cap (the same check for every backend, with the bytes of what that backend
//   runs) → open the file → simulate or execute → write.
// Nothing touches the file before every check has passed. A cuda run's rank rows name each
// rank's GPU (its memory as capacity where the plan sets none) and its config_json says which
// transport and SM split were used.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/TokenLayout.h"
#include "runtime/run/Backend.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"
#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/TraceRecords.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {

// The stages of a run, reported in this order (the app adds its own "load" after them).
enum class RunStage { Plan, Run, Write };
std::string_view runStageName(RunStage stage);  // "plan" | "run" | "write"

// Replaces a model backend's executor (cpu, cuda). The CLI passes the MPI process executor here
// (runtime/mpi is its own target, linked only by the CLI), so runtime/run never depends on MPI.
struct ExecutorOverride {
  // Runs this process's part of the plan. `writer` is null where this process does not write;
  // `header` is the run's (its rank rows, for an executor that completes them).
  std::function<Result<CpuRunResult>(const Plan&, const OpGraph&, const CpuRunOptions&,
                                     trace::TraceWriter* writer, const trace::RunHeader& header)>
      run;
  // Optional collective, called by every process once its part of the setup (opening the file
  // and beginning the run, on the process that writes) is done or failed: returns the same status
  // on every process, a failure when any process failed, so that all stop together.
  std::function<Status(const Status& mine)> agree;
};

struct RunPlanRequest {
  PlanSpec spec;                           // the plan, as buildPlan takes it
  std::shared_ptr<const BuiltPlan> built;  // or a plan already built (then `spec` is ignored)
  Backend backend = Backend::Sim;
  std::string name;        // empty: planRunName (+ " <backend> <model>" for cpu and cuda)
  std::string source;      // run.source; empty: the backend's name (an import: "torch-csv")
  std::string configJson;  // empty: the plan's knobs (sim) or modelRunConfigJson (cpu, cuda)
  // A plan fitted to an imported run, or a what-if of one (issue 31 §3): that run's id, written
  // into config_json as "fitted_from_run" so that the history shows the lineage and the app
  // compares the what-if with the original.
  std::optional<std::int64_t> fittedFrom;
  // cpu, cuda: model (its layer count is the plan's), optimizer, links, dtype, SM split and the
  // test hooks. Its cancel is replaced by RunControl's when that has one; its onStepWritten is
  // called after RunControl's progress.
  CpuRunOptions exec;
  // cpu, cuda: the model's calibrated per-layer costs (calibrateCpuCosts): the run's layer rows,
  // and the times the memory check simulates with (default: the plan's times).
  std::optional<CostModel> calibrated;
  bool write = true;  // false: run without recording (MPI processes other than rank 0)
  ExecutorOverride executor;
};

// Where the run is written: an open store, or else the file at `path`, opened (created when
// missing) only once every check has passed.
struct RunTarget {
  std::string path;
  trace::TraceStore* store = nullptr;
};

struct RunControl {
  // Called on the thread that calls runPlan (cpu/cuda steps: wherever the executor reports a
  // written step), stages in order: plan (0/1, 1/1), run (sim 0/1, 1/1; model backends each step
  // k/steps), write (0/1, 1/1). Throttling is the caller's business.
  std::function<void(RunStage stage, int done, int total)> progress;
  const std::atomic<bool>* cancel = nullptr;  // set it to stop: the run ends 'cancelled'
  // Called once the run's row exists in the file, with its id: before a simulated run's ops are
  // written, before a cpu or cuda run's first step (an MPI job: on the process that writes).
  std::function<void(std::int64_t runId)> begun;
};

struct RunPlanResult {
  std::shared_ptr<const BuiltPlan> built;  // the plan that ran (its notes, its cost model)
  std::string name;                        // the run's name
  std::optional<std::int64_t> runId;       // the recorded run; none when nothing was written
  trace::RunStatus status = trace::RunStatus::Complete;
  std::string message;  // why it failed or was cancelled
  // Failed because the executor refused to start (its setup error, e.g. a model the device
  // cannot hold): nothing ran; the run is recorded as failed with that message.
  bool setupFailed = false;
  std::optional<SimResult> sim;            // sim backend
  std::optional<CpuRunResult> exec;        // cpu, cuda
  std::optional<trace::TraceStore> store;  // the store opened from RunTarget::path, still open
};

// Whether `backend` can run in this process: always for sim and cpu; for cuda an error
// "no CUDA device (<why>)" when no device is visible (runtime/cuda/CudaBackend.h).
[[nodiscard]] Status backendAvailable(Backend backend);

// Every refusal of a model backend (cpu, cuda) that needs neither a file nor a calibration, in
// the order that tells a user most: the plan's features the backend lacks (named by their flag,
// so that a --frozen-us plan on a machine without a GPU learns that cuda never runs it, not only
// that there is no device), the model's options, then the device. `processes`: the ranks run as
// MPI processes. Returns the micro-batch layouts to train (tokenLayoutsOf; null for one shape).
[[nodiscard]] Result<std::shared_ptr<const TokenLayouts>> checkModelRequest(
    Backend backend, bool processes, const BuiltPlan& built, const CpuRunOptions& options);

// An error: refused, nothing written (a bad plan or model option, a backend that cannot run here,
// a rank over its memory cap, a file that cannot be opened). A result: what happened to the run:
// complete, failed (written up to the failure, runId set once the run was begun) or cancelled
// (nothing written when cancelled before the file was opened).
Result<RunPlanResult> runPlan(const RunPlanRequest& request, const RunTarget& target,
                              const RunControl& control = {});

// A simulated run shown before it is on disk (the app), or a simulation a caller made itself
// (benches, tests), saved through the one writer runPlan uses for the sim backend.
struct PlanPreview {
  std::shared_ptr<const BuiltPlan> built;  // the plan that was simulated
  trace::RunHeader header;                 // the run as it will be written (created when previewed)
  std::shared_ptr<const SimResult> sim;
  // The run as loadRun will read it back once saved (its id: the caller's until then). The
  // caller may hand it on and change its id; savePreview reads only `header`, `sim` and `built`.
  std::shared_ptr<trace::RunTrace> trace;
};

// runPlan's sim backend without the write: builds, simulates and checks the request as runPlan
// would (request.backend and request.write are not read), then builds the run in memory with id
// `previewId`. An error: refused (the same words as runPlan), failed or cancelled ("cancelled
// while simulating", ...); nothing is written either way.
Result<PlanPreview> previewPlan(const RunPlanRequest& request, const RunControl& control = {},
                                std::int64_t previewId = 0);
// A simulation already made of request.built (set), named and config_json'd as runPlan would
// name it: the preview previewPlan would give, without simulating again or checking caps.
PlanPreview previewOf(const RunPlanRequest& request, SimResult sim, std::int64_t previewId = 0);
// Writes the preview as runPlan writes a simulated run (control: begun, progress "write", cancel
// polled between transactions). The result has no `sim` (the preview keeps it); an error: the file
// could not be opened or the run begun, nothing written.
Result<RunPlanResult> savePreview(const PlanPreview& preview, const RunTarget& target,
                                  const RunControl& control = {});

// The header a simulated run of `request` is written with (created now): its name (result.name),
// source ("sim" or request.source) and config_json (with its lineage).
trace::RunHeader simRunHeader(const RunPlanRequest& request, const RunPlanResult& result);

// The sim backend's simulation of a built plan, as runPlan, previewPlan and explore's candidates
// have it: simulate, then every rank's peak against its cap. An error: the simulation failed or
// was cancelled, or (`overCap` set true) the plan does not fit its memory.
Result<SimResult> simulatePlan(const BuiltPlan& built, const std::atomic<bool>* cancel,
                               bool* overCap = nullptr);

// config_json with "fitted_from_run": `run` added as its first key (configJson is an object).
std::string withFittedFrom(std::string configJson, std::int64_t run);
// The "fitted_from_run" of a run's config_json, when it has one.
std::optional<std::int64_t> fittedFromRun(std::string_view configJson);

}  // namespace ps::runtime
