#pragma once
// The size check buildPlan runs before it generates anything: a plan's actions (and the layers
// the partitioner must balance) estimated from the flags alone, refused past PlanLimits.h's
// limits with a message that shows the product.

#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"

namespace ps::runtime {

// Generated schedules only (a CSV's size is known once read: checkPlanActions). Errors read
// "plan too large: 4096 stages × 1048576 micro-batches × 1 step × 2 ops (F, B) = 8.6e9 actions
// (limit 2.0e7)".
[[nodiscard]] Status checkPlanSize(const PlanSpec& spec);

// A plan whose micro-batch count its variant has just set (--seq-lengths' grouping, --token-
// slices' slices): checked before it is generated. `how` opens the message and names the flags,
// e.g. "--seq-lengths: 1000 sequences in 1000 micro-batches: ". Also counts --a2a-mb's and
// --fetch-mb's copies, as checkPlanSize does.
[[nodiscard]] Status checkVariantPlanSize(const PlanSpec& spec, int microbatches,
                                          const std::string& how);

// The actions checkPlanSize counts for a generated plan (with --a2a-mb's and --fetch-mb's
// copies): what simulating it costs, for a caller that sums many plans (explore).
double estimatedPlanActions(const PlanSpec& spec);

// A plan already read (a torch CSV) repeated over `steps` steps.
[[nodiscard]] Status checkPlanActions(const Plan& oneStep, int steps, const std::string& source);

}  // namespace ps::runtime
