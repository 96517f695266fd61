// 1F1B with a flush — D. Narayanan, A. Phanishayee, K. Shi, X. Chen, M. Zaharia:
// "Memory-Efficient Pipeline-Parallel DNN Training", ICML 2021 (PipeDream-Flush); the same
// order as S. Fan et al.: "DAPPLE: A Pipelined Data Parallel Approach for Training Large
// Models", PPoPP 2021.
//
// Rank r runs min(p-1-r, m) warm-up forwards, then alternates one forward and one backward, then
// drains the remaining backwards; the step ends with a flush (the optimizer step waits for
// every backward). Rank r therefore holds at most min(p-r, m) micro-batches of activations and
// the bubble ratio with B = 2F is (p-1)/(m+p-1), like GPipe's. Constraints: none beyond positive
// sizes (one stage per rank, v is ignored).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {

Result<Plan> generateOneFOneB(const ScheduleParams& params) {
  PS_TRY(checkBasicParams("1f1b", params));
  const int p = params.ranks, m = params.microbatches;
  Plan plan = planSkeleton("1f1b", p, p, m, [](int s) { return s; });
  for (int r = 0; r < p; ++r) {
    auto& prog = plan.programs[r];
    for (auto [k, fwd] : sched::oneFOneBSequence(p - 1 - r, m))
      prog.push_back(sched::makeAction(fwd ? OpKind::F : OpKind::B, r, k));
  }
  return plan;
}

}  // namespace ps::runtime
