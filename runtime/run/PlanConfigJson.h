#pragma once
// The config_json of a built plan (DESIGN §4): every knob needed to rerun it, the mapping used
// rather than "auto", and the cost model embedded. Internal to runtime/run (PlanBuilder).

#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "runtime/run/PlanBuilder.h"

namespace ps::runtime {

std::string planConfigJson(const PlanSpec& spec, const Plan& plan, const CostModel& cost,
                           const std::vector<int>& deviceOf);

}  // namespace ps::runtime
