#pragma once
// What the model backends cannot run yet, refused before any file is touched: each plan feature
// the simulator has and a backend lacks, named by its flag (BPipe's moves, token layouts, stage
// DAGs, comm-lane work, the frozen encoder, more than two replicas on GPUs).

#include <memory>

#include "runtime/model/ModelConfig.h"
#include "runtime/model/TokenLayout.h"
#include "runtime/plan/Plan.h"
#include "runtime/run/Backend.h"
#include "trace/Result.h"

namespace ps::runtime {

// `processes`: the ranks run as MPI processes (an executor override); `tokens`: the plan's
// micro-batch layouts (tokenLayoutsOf), null when every micro-batch has the model's shape.
[[nodiscard]] Status checkPlanFeatures(Backend backend, bool processes, const Plan& plan,
                                       const std::shared_ptr<const TokenLayouts>& tokens);
// What the plan asks of the trained model: Piper's all-to-all (--a2a-mb) shares a MoE model's
// experts out over the replicas (--model moe, experts divisible by them, no recompute, one cut).
[[nodiscard]] Status checkModelFeatures(const Plan& plan, const ModelConfig& model);

}  // namespace ps::runtime
