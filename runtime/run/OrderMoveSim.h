#pragma once
// The order doctor's moves (trace/analysis/OrderDoctor.h) re-simulated on the run's plan: each
// move applied to its rank's program (the op taken out and put just before the one the rank
// waited for), the plan validated and simulated, the gain the plan's own makespan less the
// moved one's. Unlike the trace's re-timing this sees links queue (a gradient sent earlier may
// hold a busy link), so `report` prefers it wherever the run has a plan (planOfRun).

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/plan/Plan.h"
#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"
#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

namespace ps::runtime {

struct OrderMoveActions {
  int rank = 0;
  Action move, before;  // matched by kind, stage, micro-batch and step
};

// A recorded move (OrderDoctor's ops of `run`) as the plan's actions.
OrderMoveActions orderMoveActions(const trace::RunTrace& run, const trace::OpRef& move,
                                  const trace::OpRef& before);

// The rank's program with `m.move` taken out and put just before `m.before`; false (the plan as
// it was) when either is missing or the op is half of an overlapped unit.
bool applyOrderMove(Plan& plan, const OrderMoveActions& m);

// Per move: the re-simulated gain, or nullopt when the plan's program holds either op nowhere or
// the moved order does not validate. An error only when the plan itself does not simulate.
Result<std::vector<std::optional<std::int64_t>>> resimulateOrderMoves(
    const BuiltPlan& built, const std::vector<OrderMoveActions>& moves,
    const std::atomic<bool>* cancel = nullptr);

}  // namespace ps::runtime
