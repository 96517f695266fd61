// ZB-H1 — P. Qi, X. Wan, G. Huang, M. Lin: "Zero Bubble Pipeline Parallelism", ICLR 2024
// (§2.1, "memory efficient schedule").
//
// The backward is split into I (gradient of the input, on the critical path) and W (gradient of
// the weights, free to move). Rank r keeps 1F1B's warm-up of p-r forwards, so its activation
// memory is 1F1B's (p micro-batches on rank 0). With F = I = W the I passes then run through the
// pipeline one unit apart instead of 1F1B's two (B = I + W), which halves the waiting after the
// warm-up, and the W passes of the last micro-batches are postponed into what would be the
// cool-down bubble. Rank r idles r units before its first forward and p-1-r after its warm-up,
// p-1 in all: 1F1B's (p-1)(F+B) = 3(p-1) divided by 3. See ZeroBubbleOrder.h for the order.
// Constraint: m >= p (the warm-up must fill; the paper's handcrafted schedules assume it).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"
#include "runtime/schedules/ZeroBubbleOrder.h"

namespace ps::runtime {

Result<Plan> generateZeroBubbleH1(const ScheduleParams& params) {
  const std::string name = "zb-h1";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches;
  if (m < p) return sched::constraintError(name, "m >= p", {{"m", m}, {"p", p}});
  Plan plan = planSkeleton(name, p, p, m, [](int s) { return s; });
  plan.splitBackward = true;
  // m-p steady rounds: after them p-1 micro-batches are still to come back, and their I passes
  // run at the pipeline's full speed.
  for (int r = 0; r < p; ++r)
    plan.programs[r] = sched::zeroBubbleRankOrder(r, m, p - r, m - p);
  return plan;
}

}  // namespace ps::runtime
