#pragma once
// The B/W split of LayerPipe and 2BP applied to a schedule that runs whole backwards (GPipe,
// 1F1B, ...): each B becomes I (the input gradient, which the previous stage waits for) at the
// same place in its rank's order, and the W (weight gradient, which nobody waits for) is
// deferred into the rank's bubbles: whenever the next F or I of the original order cannot start
// yet, its oldest pending W runs. Derived by a unit-time replay at the papers' F = I = W.
//
// A deferred W keeps its micro-batch's activations until it runs, so an unbounded deferral can
// hold every micro-batch's (1F1B p=4 m=8: all 8 on rank 0). maxDeferredW bounds it (2BP's
// memory trade-off): a rank with that many W pending runs the oldest before anything else.

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

// `plan`: one synchronous step of F and B ops (before repeatSteps), OPT last if at all. Errors
// name what does not fit: a schedule that splits its backward already (zb-*, dualpipe-v), an
// asynchronous one (pipedream*), overlapped pairs.
// maxDeferredW 0 = unbounded.
[[nodiscard]] Result<Plan> splitBackwardIntoBubbles(const Plan& plan, int maxDeferredW = 0);

}  // namespace ps::runtime
