// BitPipe — H. Wu et al.: "BitPipe: Bidirectional Interleaved Pipeline Parallelism for
// Accelerating Large Models Training", arXiv:2410.19367, 2024.
//
// Chimera's two pipelines in opposite directions, each cut into 2p virtual stages placed in a V
// (as in zb-v and dualpipe-v): the "down" replica runs stages 0..p-1 on ranks 0..p-1 and, on
// the way back, stages p..2p-1 on ranks p-1..0; the "up" replica mirrors it (stages 0..p-1 on ranks
// p-1..0, then back down on ranks 0..p-1). Every rank holds four virtual stages, two of each
// replica (twice the weights, as Chimera), and a micro-batch turns round on the rank where it
// reached the V's tip, so no transfer crosses the whole pipeline at the turn. Half of each group of
// p micro-batches goes down, half up.
//
// The order comes from the unit-time list scheduler in the paper's time model per virtual stage
// (F = 1, B = 2), in one of two forms:
// - m a multiple of 2p: forward doubling, as Chimera's §3.5 (see Chimera.cpp): two basic units
//   form a doubled unit, every forward slot of a rank runs a pair of micro-batches (2F, as long as
//   a B), backward first and the later virtual stage first, a doubled unit's forwards only once
//   the rank has started all of the previous unit's, and new micro-batches let in while fewer than
//   4p stage-micro-batches wait for their backward on the rank (doubled, as Chimera's). This gives
//   a bubble ratio of (D-2)/(4N+D-2) with D = p, N = m: half Chimera's (D-2)/(2N+D-2), as the
//   interleaving halves each op. Measured in the simulator (tests/runtime/schedules): p 8, m 16:
//   8.6 % against Chimera's 15.8 % and interleaved 1F1B's 17.9 %.
// - m = p (one basic unit) and odd multiples of p: oldest micro-batch first (a backward before a
//   forward of the same age), a new micro-batch let in while fewer than 2p stage-micro-batches
//   wait for their backward, then a bounded local search over the op priorities
//   (PrioritySearch.h) that closes idle slots of the fill and drain. At m = p: p 8: 21.3 % against
//   33.3 % and 30.4 %. Odd multiples are not the paper's scheme (it pairs units as Chimera does)
//   and can lose to interleaved 1F1B (p 8, m 24: 14.3 % against 12.7 %).
// Only the injection is held back: holding every forward stalled the scheduler at p = 4 for
// m = 12, 16, 24, 32 (each rank at the bound, every backward waiting for a forward another rank
// held).
//
// Not modelled: the paper's eager gradient synchronisation (each stage's all-reduce between the
// two replicas started as soon as its last backward ends, overlapped with the rest): the gradients
// are summed in one AR before the optimizer step, as for Chimera.
//
// Constraints: p even, m a multiple of p (each group splits evenly between the directions).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ListScheduler.h"
#include "runtime/schedules/PrioritySearch.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {
namespace {

// Forward doubling (m a multiple of 2p): see the header comment.
sched::ListPriority doubledPriority(int p) {
  const int stages = 2 * p, group = 2, hold = 2 * 2 * p, unitSize = 2 * p;
  return [=](int, const Action& a, const sched::RankLoad& load) -> std::optional<std::int64_t> {
    if (a.kind == OpKind::B) return -a.stage;
    if (a.stage == 0 && load.awaitingBackward + group > hold) return std::nullopt;
    // A rank runs 4p forwards per doubled unit (2p micro-batches, two virtual stages each).
    const int unit = a.microbatch / unitSize;
    if (load.forwardsStarted < unit * unitSize * 2) return std::nullopt;
    return stages - a.stage;
  };
}

// One unit or odd multiples: the oldest micro-batch of its direction first.
sched::ListPriority oldestFirstPriority(int p) {
  const int hold = 2 * p;
  // The k-th micro-batch of each direction has age k.
  auto age = [p](int k) { return (k / p) * (p / 2) + (k % p) % (p / 2); };
  return [=](int, const Action& a, const sched::RankLoad& load) -> std::optional<std::int64_t> {
    if (a.kind == OpKind::F && a.stage == 0 && load.awaitingBackward >= hold) return std::nullopt;
    return std::int64_t{age(a.microbatch)} * 8 + (a.kind == OpKind::B ? 0 : 4);
  };
}

}  // namespace

Result<Plan> generateBitPipe(const ScheduleParams& params) {
  const std::string name = "bitpipe";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches;
  if (p % 2 != 0) return sched::constraintError(name, "p even", {{"p", p}});
  if (m % p != 0)
    return sched::constraintError(name, "m a multiple of p (half of each p go each way)",
                                  {{"m", m}, {"p", p}});
  const int stages = 2 * p;
  Plan plan = planSkeleton(name, p, stages, m, [p](int s) { return s < p ? s : 2 * p - 1 - s; });
  plan.placement.push_back(plan.placement[0]);
  for (int s = 0; s < stages; ++s)
    plan.placement[1][s].rank = s < p ? p - 1 - s : s - p;
  for (int base = 0; base < m; base += p)
    for (int j = base + p / 2; j < base + p; ++j)
      plan.microbatches[j].replica = 1;

  const bool doubling = m % (2 * p) == 0;
  const sched::UnitCosts costs{1, 2, 1, 1};
  auto order = doubling ? sched::listSchedule(plan, costs, doubledPriority(p), 2)
                        : sched::searchListSchedule(plan, costs, oldestFirstPriority(p));
  PS_TRY(order);
  plan.programs = std::move(order->programs);
  return plan;
}

}  // namespace ps::runtime
