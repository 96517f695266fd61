#pragma once
// The V-shape zero-bubble order shared by zb-v and dualpipe-v (internal to runtime/schedules).

#include <string>

#include "runtime/plan/Plan.h"
#include "runtime/schedules/ListScheduler.h"
#include "trace/Result.h"

namespace ps::runtime::sched {

// A skeleton with 2p stages in a V (stage s on rank s for s < p, on rank 2p-1-s after), split
// backward.
Plan vShapeSkeleton(const std::string& name, int p, int m);

// List-schedules the V with F = I = W = 1 unit. A free rank starts, in this order of
// preference: a ready forward while it holds fewer than `holdLimit` chunk activations (counted
// from F until W; the later chunk first, to finish micro-batches); else a ready I (chunk 0
// first: it completes a micro-batch's backward); else its oldest pending W. Forwards first keep
// the next micro-batches flowing down the V, and the memory limit is what turns the rank to
// backwards: before its first I every rank runs exactly `holdLimit` forwards
// (F0^(2p-1-2r) (F1 F0)^r F1 on rank r for holdLimit = 2p), which is what fits between its
// first forward and micro-batch 0's first I coming back round the V, so no rank waits in the
// warm-up.
Result<ListScheduleResult> vShapeListOrder(const Plan& skeleton, int holdLimit);

}  // namespace ps::runtime::sched
