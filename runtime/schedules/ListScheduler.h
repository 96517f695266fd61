#pragma once
// A greedy unit-time list scheduler (internal to runtime/schedules). The V-shape (zb-v,
// dualpipe-v) and Chimera generators derive their orders with it: time advances in whole units;
// whenever a rank is free it starts, among the ops whose dependencies have finished, the one its
// policy ranks first, or stays idle when the policy holds every ready op back (a memory limit). The
// order it produces, replayed in order by the simulator under the same costs, gives the same
// times.
//
// Ops of one kind on one stage are issued in micro-batch order, so a rank only ever chooses
// between the heads of its (replica, stage, kind) queues: a few candidates per decision.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime::sched {

struct UnitCosts {
  int f = 1, b = 2, i = 1, w = 1;  // in units; the papers' F = I = W (B = I + W)
};

// What a rank holds when a policy decides (counted from the moment ops start).
struct RankLoad {
  int awaitingBackward = 0;  // stage-micro-batches whose F started and whose B/I has not
  int holding = 0;           // ... whose F started and whose last backward (B or W) has not
  int pendingW = 0;          // ... whose I started and whose W has not
  int forwardsStarted = 0;   // every F this rank has started so far
};

// The priority of starting `a` now on `rank` (lower first; ties go to F, then B/I, then W, then
// to the rank's first (replica, stage) lane), or nullopt to hold it back for now.
using ListPriority =
    std::function<std::optional<std::int64_t>(int rank, const Action& a, const RankLoad& load)>;

struct ListScheduleResult {
  std::vector<std::vector<Action>> programs;     // [rank], in start order
  std::vector<std::vector<std::int64_t>> start;  // [rank][i], in units
  std::int64_t makespan = 0;
};

// Schedules every op the skeleton needs (F, and B or I+W per stage and micro-batch; a
// micro-batch's ops run on its replica's ranks). Fails when the policy holds back every op while
// nothing runs.
//
// `forwardGroup` > 1 issues forwards in groups: a rank starts the forwards of the next
// `forwardGroup` micro-batches of a lane back to back, once all of them are ready (fewer at the
// lane's end), as one decision of length forwardGroup·F — Chimera's forward doubling. The
// policy sees the group's first forward and decides for the group.
Result<ListScheduleResult> listSchedule(const Plan& skeleton, const UnitCosts& cost,
                                        const ListPriority& priority, int forwardGroup = 1);

}  // namespace ps::runtime::sched
