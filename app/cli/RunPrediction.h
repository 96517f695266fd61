#pragma once
// The simulator's side of `pipescope-cli run --backend cpu`: calibration (--calibrate-out,
// --compare-sim), the predicted run, and the memory-cap check done before a run begins.

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/cost/CostModel.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/plan/PlanBuilder.h"
#include "runtime/sim/Simulator.h"
#include "trace/Result.h"
#include "trace/store/TraceStore.h"

namespace ps::cli {

struct PredictionRequest {
  bool compareSim = false;   // calibrate, simulate, compare after the run
  std::string calibrateOut;  // write the calibrated cost JSON here
  bool calibrate = true;     // false: sizes only (MPI ranks other than 0 leave timing to rank 0)
};

struct RunPrediction {
  runtime::CostModel cost;  // what the simulator ran with: real model sizes, calibrated times
  runtime::SimResult sim;
  bool calibrated = false;
};

// Runs before the file is touched. Calibrates when --compare-sim or --calibrate-out asks for it
// (and writes the cost file); whenever the plan's cost model caps a rank's memory, or when
// comparing, simulates the plan with the real model's sizes and fails, naming the rank and by how
// much, if a rank would exceed its cap. nullopt when nothing was asked and no rank is capped.
// Links are the emulated ones (options.linkGbps, linkLatencyUs); ranks keep their caps at speed 1.
Result<std::optional<RunPrediction>> predictCpuRun(const runtime::BuiltPlan& built,
                                                   const runtime::CpuRunOptions& options,
                                                   const PredictionRequest& request);

// After a complete measured run: stores the simulated run (source 'sim', "<name> (predicted)")
// and prints predicted vs measured step time and bubble with the errors. Returns an exit code.
int reportPrediction(trace::TraceStore& store, std::int64_t measuredRunId,
                     const runtime::BuiltPlan& built, const RunPrediction& prediction,
                     const std::string& name);

}  // namespace ps::cli
