#pragma once
// The gradient exchanges of a replicated plan (Chimera, BitPipe, --dp; internal to runtime/sim):
// what the all-reduce before each OPT (OpCosts) and eager sync's stage-by-stage exchanges
// (EagerSync) both walk.

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"

namespace ps::runtime::sim {

// One gradient exchange of a replicated stage: the copy `replica` holds on its rank sends its
// gradients (`bytes`, the stage's parameters) to the copy `twinReplica` holds on `twin`.
struct GradientExchange {
  int replica = 0, stage = 0, twinReplica = 0, twin = 0;
  double bytes = 0;
};

// Calls visit(GradientExchange) for each exchange of `rank`: per stage copy it holds and other
// replica of that stage on another rank.
template <class Visit>
void forEachExchange(const Plan& plan, const CostModel& cost, int rank, Visit visit) {
  for (int k = 0; k < plan.numReplicas(); ++k)
    for (const StagePlacement& st : plan.placement[k]) {
      if (st.rank != rank) continue;
      double bytes = 0;
      for (int l = st.firstLayer; l <= st.lastLayer; ++l)
        bytes += static_cast<double>(cost.layers[l].paramBytes);
      const int stage = static_cast<int>(&st - plan.placement[k].data());
      for (int other = 0; other < plan.numReplicas(); ++other) {
        const int twin = plan.placement[other][stage].rank;
        if (other != k && twin != rank) visit(GradientExchange{k, stage, other, twin, bytes});
      }
    }
}

}  // namespace ps::runtime::sim
