#pragma once
// The validator: a plan is accepted when its graph builds (no missing/duplicate/unknown ops) and
// in-order execution of every rank's program cannot deadlock. Errors name ranks and ops, e.g.
// "deadlock: rank 1 waits for 2F3 which rank 2 schedules after 2B3".

#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

// Validates and returns the graph the simulator/executors then use.
Result<OpGraph> validatePlan(const Plan& plan);

// Appends an OPT per rank to a one-step plan and repeats its programs `steps` times. The
// rvalue form reuses the plan instead of copying it (generate-then-repeat of large plans).
Result<Plan> repeatSteps(const Plan& oneStep, int steps, OptimizerSync sync);
Result<Plan> repeatSteps(Plan&& oneStep, int steps, OptimizerSync sync);

}  // namespace ps::runtime
