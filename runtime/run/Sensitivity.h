#pragma once
// The sensitivity table of the critical-path analysis: for every stage and op kind of a plan,
// the step time when that kind runs `speedup` faster on that stage (its layers' F, B = I + W, I or
// W cost scaled by 1 - speedup), re-simulated with the plan's cost model. What a user should
// optimise first reads off the top row. 3 or 4 simulations per stage: cheap for a teaching plan,
// seconds for p = 64.

#include <atomic>
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

// What one table may simulate in all (its simulations × the plan's actions), as explore's sweep
// limit: 2·10^8 actions is a minute or two; a 25M-op run's 32 simulations would be hours.
inline constexpr double kMaxSensitivityActions = 2e8;

// The simulations a table of `built` runs (the base and one per stage and kind it holds) and the
// actions each simulates.
struct SensitivitySize {
  int simulations = 0;
  double actionsEach = 0;
  double total() const { return simulations * actionsEach; }
};
SensitivitySize sensitivitySize(const BuiltPlan& built);

// Rows sorted by time saved (largest first, then stage, then kind); errors name what failed.
// Refused before simulating anything past kMaxSensitivityActions, with the numbers; `cancel`
// (Ctrl-C) is polled by every simulation and between them: "sensitivity cancelled".
Result<std::vector<trace::StepSpeedup>> stepSensitivity(const BuiltPlan& built,
                                                        double speedup = 0.1,
                                                        const std::atomic<bool>* cancel = nullptr);

}  // namespace ps::runtime
