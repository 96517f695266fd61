#pragma once
// The sensitivity table of the critical-path analysis: for every stage and op kind of a plan,
// the step time when that kind runs `speedup` faster on that stage (its layers' F, B = I + W, I or
// W cost scaled by 1 - speedup), re-simulated with the plan's cost model. What a user should
// optimise first reads off the top row. 3 or 4 simulations per stage: cheap for a teaching plan,
// seconds for p = 64.

#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/analysis/StepSpeedup.h"

namespace ps::runtime {

// A recorded run's own times as the plan's costs (cpu and cuda runs: what really ran, not the
// flags): per stage the mean F, B, I and W duration over the run's ops of that stage, spread
// evenly over the stage's layers; a B with no I/W record keeps the model's I:W split. Rank speeds
// become 1 (the measured times already hold them). Stages the run has no ops of keep their costs.
void useMeasuredCosts(BuiltPlan& built, const trace::RunTrace& run);

// Rows sorted by time saved (largest first, then stage, then kind); errors name what failed.
Result<std::vector<trace::StepSpeedup>> stepSensitivity(const BuiltPlan& built,
                                                        double speedup = 0.1);

}  // namespace ps::runtime
