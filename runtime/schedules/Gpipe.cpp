// GPipe — Y. Huang, Y. Cheng, A. Bapna, O. Firat, M. X. Chen, D. Chen, H. Lee, J. Ngiam,
// Q. V. Le, Y. Wu, Z. Chen: "GPipe: Efficient Training of Giant Neural Networks using Pipeline
// Parallelism", NeurIPS 2019.
//
// Every rank runs the forwards of all m micro-batches, then their backwards. The backwards run
// in reverse micro-batch order, as in the paper's Figure 2(c): the last micro-batch's forward has
// just finished on the last stage, so its backward can start at once. Every rank holds the
// activations of all m micro-batches at its peak; with B = 2F the bubble ratio is
// (p-1)/(m+p-1). Constraints: none beyond positive sizes (one stage per rank, v is ignored).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {

Result<Plan> generateGpipe(const ScheduleParams& params) {
  PS_TRY(checkBasicParams("gpipe", params));
  const int p = params.ranks, m = params.microbatches;
  Plan plan = planSkeleton("gpipe", p, p, m, [](int s) { return s; });
  for (int r = 0; r < p; ++r) {
    auto& prog = plan.programs[r];
    prog.reserve(2 * static_cast<std::size_t>(m));
    for (int k = 0; k < m; ++k)
      prog.push_back(sched::makeAction(OpKind::F, r, k));
    for (int k = m - 1; k >= 0; --k)
      prog.push_back(sched::makeAction(OpKind::B, r, k));
  }
  return plan;
}

}  // namespace ps::runtime
