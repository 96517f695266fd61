// ZB-H2 — P. Qi, X. Wan, G. Huang, M. Lin: "Zero Bubble Pipeline Parallelism", ICLR 2024
// (§2.2, "zero bubble schedule", and §4, optimizer post-validation).
//
// Like ZB-H1 but rank r runs 2(p-r)-1 warm-up forwards — exactly as many as fit before the first
// I comes back (it returns 2(p-1-r)+1 units after the rank's first forward) — so no rank waits
// after its warm-up, at the price of (2p-1) micro-batches of activations on rank 0. The
// postponed W passes then end rank r's step 2r+1 units after its last I, so rank r is busy
// without a gap over [r, r + 3m): every rank's step is one contiguous block and the blocks form
// a parallelogram. Inside one step the ranks still start r units apart (bubble (p-1)/(3m+p-1)),
// but when the optimizer step is no barrier (OptimizerSync::None, the paper's post-validation),
// step k+1's warm-up starts on every rank right where its step k ends: the steady-state bubble
// is zero. Constraint: m >= 2p-1 (rank 0's warm-up needs 2p-1 micro-batches).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"
#include "runtime/schedules/ZeroBubbleOrder.h"

namespace ps::runtime {

Result<Plan> generateZeroBubbleH2(const ScheduleParams& params) {
  const std::string name = "zb-h2";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches;
  if (m < 2 * p - 1) return sched::constraintError(name, "m >= 2p-1", {{"m", m}, {"p", p}});
  Plan plan = planSkeleton(name, p, p, m, [](int s) { return s; });
  plan.splitBackward = true;
  for (int r = 0; r < p; ++r)
    plan.programs[r] = sched::zeroBubbleRankOrder(r, m, 2 * (p - r) - 1, m - 2 * p + 1);
  return plan;
}

}  // namespace ps::runtime
