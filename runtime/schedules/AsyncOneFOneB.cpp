#include "runtime/schedules/AsyncOneFOneB.h"

#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime::sched {

Plan asyncOneFOneBPlan(const std::string& name, const ScheduleParams& params,
                       WeightVersioning versioning) {
  const int p = params.ranks, m = params.microbatches, steps = params.steps;
  Plan plan = planSkeleton(name, p, p, m, [](int s) { return s; });
  plan.steps = steps;
  plan.versioning = versioning;
  // No barrier: each rank steps its own stage's optimizer as soon as its gradients are in.
  plan.optimizerSync = OptimizerSync::None;
  const int total = steps * m;
  for (int r = 0; r < p; ++r) {
    auto& prog = plan.programs[r];
    prog.reserve(2 * static_cast<std::size_t>(total) + steps);
    for (auto [g, fwd] : oneFOneBSequence(p - 1 - r, total)) {
      const int step = g / m, mb = g % m;
      prog.push_back(makeAction(fwd ? OpKind::F : OpKind::B, r, mb, step));
      if (!fwd && mb == m - 1) prog.push_back(optAction(step));
    }
  }
  return plan;
}

}  // namespace ps::runtime::sched
