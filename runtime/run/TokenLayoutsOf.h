#pragma once
// The model's micro-batches for a plan built with --seq-lengths (DynaPipe) or --token-slices
// (TeraPipe): each plan micro-batch's rows, columns and sequence pieces, for the backends that
// train (StageOptions::tokens).

#include <memory>

#include "runtime/model/ModelConfig.h"
#include "runtime/model/TokenLayout.h"
#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"

namespace ps::runtime {

// Null when every micro-batch is the model's --microbatch-size × --seq. Errors name the flags
// (the model's --seq must be the plan's --seq-tokens: the cpu backend trains those tokens).
Result<std::shared_ptr<const TokenLayouts>> tokenLayoutsOf(const BuiltPlan& built,
                                                           const ModelConfig& model);

}  // namespace ps::runtime
