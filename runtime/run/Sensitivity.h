#pragma once
// The sensitivity table of the critical-path analysis: for every stage and op kind of a plan,
// the step time when that kind runs `speedup` faster on that stage (its layers' F, B = I + W, I or
// W cost scaled by 1 - speedup), re-simulated with the plan's cost model. What a user should
// optimise first reads off the top row. 3 or 4 simulations per stage: cheap for a teaching plan,
// seconds for p = 64.

#include <vector>

#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"
#include "trace/analysis/StepSpeedup.h"

namespace ps::runtime {

// Rows sorted by time saved (largest first, then stage, then kind); errors name what failed.
Result<std::vector<trace::StepSpeedup>> stepSensitivity(const BuiltPlan& built,
                                                        double speedup = 0.1);

}  // namespace ps::runtime
