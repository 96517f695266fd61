#pragma once
// The simulator's side of `pipescope-cli run`: calibration (--calibrate-out, --compare-sim) before
// the run, and after it the predicted run and the predicted-vs-measured table. The memory-cap
// check before a run is runPlan's (runtime/run/RunPlan.h), as for every backend.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "runtime/cost/CostModel.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/Backend.h"
#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"
#include "trace/store/TraceStore.h"

namespace ps::cli {

struct PredictionRequest {
  bool compareSim = false;   // calibrate, simulate, compare after the run
  std::string calibrateOut;  // write the calibrated cost JSON here
  bool calibrate = true;     // false: MPI ranks other than 0 leave timing to rank 0
  runtime::Backend backend = runtime::Backend::Cpu;  // where the layers are timed
};

// Runs before the file is touched. When --compare-sim or --calibrate-out asks for it, times every
// layer of the model on the run's backend (cpu, or the first GPU for cuda) and writes the cost
// file; nullopt when nothing was asked.
Result<std::optional<runtime::CostModel>> calibrateForRun(const runtime::BuiltPlan& built,
                                                          const runtime::CpuRunOptions& options,
                                                          const PredictionRequest& request);

// For a cuda run whose ranks share GPUs: what the prediction assumes (one GPU per rank) or, with
// --sm-split, that calibration used one SM share per rank (runtime/run/SharedGpuPrediction.h);
// empty otherwise. calibrateForRun prints it too, before calibrating.
std::string predictionPlacementNote(runtime::Backend backend, int ranks, bool smSplit);

// After a complete measured run: simulates the plan with the model's calibrated costs and stores
// that run (source 'sim', "<name> (predicted)") through runPlan, then prints predicted vs measured
// step time and bubble with the errors, then `placementNote` when non-empty. Returns an exit code.
// `cancel` (Ctrl-C) stops the prediction's simulation or write; that run then ends 'cancelled'.
int reportPrediction(trace::TraceStore& store, std::int64_t measuredRunId,
                     const std::shared_ptr<const runtime::BuiltPlan>& built,
                     const runtime::CpuRunOptions& options, const runtime::CostModel& calibrated,
                     const std::string& name, const std::string& placementNote = {},
                     const std::atomic<bool>* cancel = nullptr);

}  // namespace ps::cli
