#pragma once
// The fitted costs and program as the plan's inputs (internal to runtime/fit): the cost model
// (one or more layers per stage, the link, memory and optimizer) and the PlanSpec that builds it.

#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/fit/PlanFit.h"
#include "trace/Result.h"

namespace ps::runtime::fit {

// Each stage's mean F, I and W (a B split by options.wgradShare) over options.layersPerStage
// layers; activations and weights from the memory fit; the link's bandwidth and latency; the
// optimizer's time per parameter byte where the weights are known. Notes say what was assumed.
[[nodiscard]] Result<CostModel> fittedCostModel(const FittedPlan& fit, const FitOptions& options,
                                                std::vector<std::string>& notes);

// The plan: the matched generator (or spec.scheduleFile = `scheduleFile`), P, M, V, layers with
// explicit boundaries (so the partitioner keeps the recorded stages), steps, optimizer sync,
// recompute, the cost model embedded.
PlanSpec fittedSpec(const FittedPlan& fit, const FitOptions& options, CostModel model,
                    const std::string& scheduleFile);

}  // namespace ps::runtime::fit
