// ZB-V — P. Qi, X. Wan, G. Huang, M. Lin: "Zero Bubble Pipeline Parallelism", ICLR 2024 (the
// arXiv version's §6, "memory efficient zero bubble schedule"), and P. Qi, X. Wan, N. Amar,
// M. Lin: "Pipeline Parallelism with Controllable Memory", NeurIPS 2024 (V-ZB).
//
// Two chunks per rank in a V: stage s on rank s for s < p and on rank 2p-1-s for s >= p, so a
// micro-batch goes down the ranks and back up, and rank 0 holds both the first and the last
// stage. The V makes the first backward come back to every rank exactly 2p chunk-units after its
// first forward, so with the memory of 1F1B (p micro-batches = 2p chunk activations, counted from
// F to W, the same on every rank: the paper's "balanced" memory) a rank runs forwards until its
// first I arrives and never waits in the warm-up. The order is derived by the unit-time list
// scheduler with F = I = W (VShapeListOrder.h). With F = I = W every rank idles p-1 chunk units
// per step in all (as much as the V's start-up skew: rank r starts r units late), which is 1/6
// of 1F1B's (p-1)(F+B) over the same model and half of ZB-H1's; the paper's V-ZB reports a
// bubble close to zero. Unlike ZB-H2's, the ranks' steps here do not tile into a
// parallelogram, so dropping the optimizer barrier does not remove that idle time.
// Constraints: v = 2 (fixed; params.chunks is ignored).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/VShapeListOrder.h"

namespace ps::runtime {

Result<Plan> generateZeroBubbleV(const ScheduleParams& params) {
  const std::string name = "zb-v";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches;
  Plan plan = sched::vShapeSkeleton(name, p, m);
  auto order = sched::vShapeListOrder(plan, 2 * p);
  PS_TRY(order);
  plan.programs = std::move(order->programs);
  return plan;
}

}  // namespace ps::runtime
