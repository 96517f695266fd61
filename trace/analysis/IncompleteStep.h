#pragma once
// A run that did not complete can end inside a step: a killed or cancelled writer has committed
// some of the step's ops and not the rest (`sim` commits every 4096 ops so that a cancel is seen
// at once; a SIGKILL or power loss stops it anywhere). Averaged in, that partial step shortens
// the step time and skews the bubble, so the step figures leave it out and say so.

#include <cstdint>
#include <optional>
#include <vector>

#include "trace/RunTrace.h"

namespace ps::trace {

struct IncompleteStep {
  int step = 0;
  std::int64_t compute_ops = 0;    // the compute ops it holds
  std::int64_t fewest_before = 0;  // the fewest compute ops of any step before it
};

// The last of `steps` (sorted, distinct compute steps) when the run's status is not `complete`
// and that step holds fewer compute ops than every step before it; nullopt otherwise, and for a
// run of one step, where nothing tells a partial step from a short one.
std::optional<IncompleteStep> incompleteLastStep(const RunTrace& run,
                                                 const std::vector<int>& steps);

}  // namespace ps::trace
