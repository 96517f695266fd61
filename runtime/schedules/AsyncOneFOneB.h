#pragma once
// The shared order of the asynchronous generators (pipedream, pipedream-2bw): 1F1B without a
// flush across `steps` steps of m micro-batches each.

#include <string>

#include "runtime/plan/Plan.h"
#include "runtime/schedules/Schedule.h"

namespace ps::runtime::sched {

// Rank r runs min(p-1-r, steps·m) warm-up forwards once, then alternates forward and backward
// over the micro-batches of all steps in order (step k's micro-batch j is item k·m + j), and
// drains only after the last step. Each rank's OPT of step k follows its backward of step k's
// last micro-batch, so steps overlap and the pipeline never drains in between.
Plan asyncOneFOneBPlan(const std::string& name, const ScheduleParams& params,
                       WeightVersioning versioning);

}  // namespace ps::runtime::sched
