// Chimera — S. Li, T. Hoefler: "Chimera: Efficiently Training Large-Scale Neural Networks with
// Bidirectional Pipelines", SC 2021.
//
// Two replicas of the p-stage pipeline run in opposite directions: the "down" pipeline places
// stage s on rank s (replica 0), the "up" pipeline on rank p-1-s (replica 1), so every rank holds
// one stage of each (twice the weights). Each basic unit of p micro-batches sends its first half
// down and its second half up (a smaller last unit splits the same way). The paper schedules
// each direction 1F1B-style and merges the two; merging two 1F1Bs collides on the middle
// ranks, so the order here is derived by the unit-time list scheduler in the paper's own time
// model (a forward and a backward slot of the same length): backward first, deeper stage first,
// and forwards while fewer than p micro-batches wait for their backward (the paper's activation
// bound of p stage activations per rank). It reproduces the paper's bubble ratio
// (D-2)/(2N+D-2) with D = p, N = m (p-2 idle slots per rank instead of 1F1B's 2(p-1)) and its
// memory: rank 0 peaks at p/2+1 stage activations for m = p, no rank above p. With B = 2F and
// m > p the units run back to back without the paper's forward doubling, and the bubble grows
// with m (see the bubble tests).
// Constraints: p even (the two directions meet without collisions only then), m even.

#include <algorithm>

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ListScheduler.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {

Result<Plan> generateChimera(const ScheduleParams& params) {
  const std::string name = "chimera";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches;
  if (p % 2 != 0) return sched::constraintError(name, "p even", {{"p", p}});
  if (m % 2 != 0)
    return sched::constraintError(name, "m even (half the micro-batches go each way)", {{"m", m}});
  Plan plan = planSkeleton(name, p, p, m, [](int s) { return s; });
  plan.placement.push_back(plan.placement[0]);
  for (int s = 0; s < p; ++s)
    plan.placement[1][s].rank = p - 1 - s;
  for (int base = 0; base < m; base += p) {
    const int unit = std::min(p, m - base);
    for (int j = base + unit / 2; j < base + unit; ++j)
      plan.microbatches[j].replica = 1;
  }

  auto priority = [p](int, const Action& a,
                      const sched::RankLoad& load) -> std::optional<std::int64_t> {
    // The deeper stage first: its micro-batch is closer to turning round (F) or to finishing
    // its backward (B), which frees memory and unblocks the other direction sooner.
    if (a.kind == OpKind::B) return -a.stage;
    if (load.awaitingBackward >= p) return std::nullopt;
    return p - a.stage;
  };
  auto order = sched::listSchedule(plan, {1, 1, 1, 1}, priority);  // F and B slots alike
  PS_TRY(order);
  plan.programs = std::move(order->programs);
  return plan;
}

}  // namespace ps::runtime
