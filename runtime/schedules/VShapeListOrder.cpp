#include "runtime/schedules/VShapeListOrder.h"

#include "runtime/schedules/Schedule.h"

namespace ps::runtime::sched {

Plan vShapeSkeleton(const std::string& name, int p, int m) {
  Plan plan = planSkeleton(name, p, 2 * p, m, [p](int s) { return s < p ? s : 2 * p - 1 - s; });
  plan.splitBackward = true;
  return plan;
}

Result<ListScheduleResult> vShapeListOrder(const Plan& skeleton, int holdLimit) {
  const int p = skeleton.numRanks;
  auto priority = [p, holdLimit](int, const Action& a,
                                 const RankLoad& load) -> std::optional<std::int64_t> {
    const bool chunk1 = a.stage >= p;
    if (a.kind == OpKind::F) {
      if (load.holding >= holdLimit) return std::nullopt;
      return chunk1 ? 0 : 1;
    }
    if (a.kind == OpKind::I) return chunk1 ? 3 : 2;
    return 4;
  };
  return listSchedule(skeleton, {}, priority);
}

}  // namespace ps::runtime::sched
