// Chimera — S. Li, T. Hoefler: "Chimera: Efficiently Training Large-Scale Neural Networks with
// Bidirectional Pipelines", SC 2021 (§3.2 bidirectional pipelines, §3.5 more micro-batches).
//
// Two replicas of the p-stage pipeline run in opposite directions: the "down" pipeline places
// stage s on rank s (replica 0), the "up" pipeline on rank p-1-s (replica 1), so every rank holds
// one stage of each (twice the weights). Each basic unit of p micro-batches sends its first half
// down and its second half up.
//
// m = p, one basic unit: the paper schedules each direction 1F1B-style and merges the two;
// merging two 1F1Bs collides on the middle ranks, so the order here is derived by the unit-time
// list scheduler in the paper's own time model (a forward and a backward slot of the same
// length): backward first, deeper stage first, and forwards while fewer than p micro-batches
// wait for their backward (the paper's activation bound of p stage activations per rank). It
// reproduces the paper's bubble ratio (D-2)/(2N+D-2) with D = p, N = m (p-2 idle slots per rank
// instead of 1F1B's 2(p-1)) and its memory: rank 0 peaks at p/2+1 stage activations, no rank
// above p.
//
// m = 2jp, forward doubling (§3.5). Concatenating basic units directly leaves bubbles between
// them when a backward takes longer than a forward (B = 2F, the paper's case); forward doubling
// removes them by running the forwards of two micro-batches back to back, so that a forward slot
// is as long as a backward slot again, at twice the activation memory. Our reading of the
// paper's figure, which shows the scheme but gives no algorithm: two basic units form a doubled
// unit of 2p micro-batches (each direction's micro-batches paired in order), every forward slot
// of a rank runs one pair (2F), every backward slot one micro-batch's backward (B = 2F), and the
// same list scheduler orders the slots with the activation bound doubled to 2p; doubled units
// follow one another (a rank starts the next unit's forwards once it has started all of this
// one's), the next unit's forwards filling the previous unit's drain. In slot time a rank then
// has N/2 forward slots, N backward slots and only the basic unit's D-2 idle slots (D/2-1 among
// the forwards, D/2-1 among the backwards), however many doubled units: the paper's
// (D-2)/(3N/2+D-2). Run as ops, a forward-phase idle slot lasts only F (a pair's first
// forward starts when its own input arrives), so a rank idles (D/2-1)(F+B) = 3(p-2)/2 units of F
// out of 3m + 3(p-2)/2: a bubble ratio of (D-2)/(2N+D-2), the basic unit's formula, now with
// B = 2F. Activations double: rank 0 peaks at 2(p/2+1) = p+2 for m = 2p, and no rank holds
// more than 2p. A single basic unit (m = p) is not doubled.
//
// Constraints: p even (the two directions meet without collisions only then); m = p or m a
// multiple of 2p (an odd number of basic units would leave one undoubled unit and its
// intermediate bubbles).

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
  const bool doubling = m > p;
  if (m != p && m % (2 * p) != 0)
    return sched::constraintError(
        name, "m = p (one basic unit) or m a multiple of 2p (forward doubling pairs two units)",
        {{"m", m}, {"p", p}});
  Plan plan = planSkeleton(name, p, p, m, [](int s) { return s; });
  plan.placement.push_back(plan.placement[0]);
  for (int s = 0; s < p; ++s)
    plan.placement[1][s].rank = p - 1 - s;
  for (int base = 0; base < m; base += p)
    for (int j = base + p / 2; j < base + p; ++j)
      plan.microbatches[j].replica = 1;

  const int group = doubling ? 2 : 1;
  const int hold = group * p;
  auto priority = [p, hold, group](int, const Action& a,
                                   const sched::RankLoad& load) -> std::optional<std::int64_t> {
    // The deeper stage first: its micro-batch is closer to turning round (F) or to finishing
    // its backward (B), which frees memory and unblocks the other direction sooner.
    if (a.kind == OpKind::B) return -a.stage;
    if (load.awaitingBackward + group > hold) return std::nullopt;
    // Doubled units one after the other: a rank runs 2p forwards per doubled unit and starts
    // the next unit's only once it has started all of this one's (else it fills a short gap
    // early and pays for it with the slot rhythm later).
    const int unit = a.microbatch / (group * p);
    if (load.forwardsStarted < unit * group * p) return std::nullopt;
    return p - a.stage;
  };
  // One unit: F and B slots alike (the paper's model); doubled: B = 2F, a pair of F per slot.
  const sched::UnitCosts costs =
      doubling ? sched::UnitCosts{1, 2, 1, 1} : sched::UnitCosts{1, 1, 1, 1};
  auto order = sched::listSchedule(plan, costs, priority, group);
  PS_TRY(order);
  plan.programs = std::move(order->programs);
  return plan;
}

}  // namespace ps::runtime
