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
// (F = 1, B = 2): backward first, later virtual stage first (closer to freeing its activations),
// a new micro-batch let in (its stage-0 forward) while fewer than 2p stage-micro-batches wait for
// their backward on the rank (a virtual stage holds half a Chimera stage's layers, so this is
// Chimera's p-stage bound in bytes). Only the injection is held back: holding every forward
// stalled the scheduler at p = 4 for m = 12, 16, 24, 32 (each rank at the bound, every backward
// waiting for a forward another rank held). The fill and drain are made of half-length ops from
// both ends of the pipeline at once: at m = p the bubble falls below Chimera's and interleaved
// 1F1B's (p = 8: 25.0 % vs 33.3 % and 30.4 %); from m = 2p on it is above them (p = 8, m = 16:
// 26.7 % vs 15.8 % and 18.0 %), as this is not yet the paper's eager-sync V schedule (issue 35).
// Between the two replicas the gradients are summed before the optimizer step (the AR op).
//
// Constraints: p even, m a multiple of p (each group splits evenly between the directions).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ListScheduler.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {

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

  const int hold = 2 * p;
  auto priority = [hold, stages](int, const Action& a,
                                 const sched::RankLoad& load) -> std::optional<std::int64_t> {
    if (a.kind == OpKind::B) return -a.stage;
    if (a.stage == 0 && load.awaitingBackward >= hold) return std::nullopt;
    return stages + (stages - a.stage);
  };
  auto order = sched::listSchedule(plan, sched::UnitCosts{1, 2, 1, 1}, priority);
  PS_TRY(order);
  plan.programs = std::move(order->programs);
  return plan;
}

}  // namespace ps::runtime
