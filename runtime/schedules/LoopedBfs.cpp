// Looped breadth-first — J. Lamy-Poirier: "Breadth-First Pipeline Parallelism", MLSys 2023.
//
// The same looped placement as the interleaved schedule (stage s on rank s % p, v chunks per
// rank), but breadth-first: a rank runs the forwards of all m micro-batches through its first
// chunk, then all of them through its second chunk, and so on; the backwards then walk the
// chunks in reverse, last micro-batch first (GPipe-like within each chunk). Every rank holds all
// m·v chunk activations at its peak (like GPipe), and with m >= p the pipeline never waits
// between chunks, so the bubble time is GPipe's ÷ v — the same as interleaved 1F1B.
// Constraints: none beyond positive sizes (with m < p the loop waits between chunks, which the
// plan allows).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {

Result<Plan> generateLoopedBfs(const ScheduleParams& params) {
  const std::string name = "looped-bfs";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches, v = params.chunks;
  Plan plan = planSkeleton(name, p, p * v, m, [p](int s) { return s % p; });
  for (int r = 0; r < p; ++r) {
    auto& prog = plan.programs[r];
    prog.reserve(2 * static_cast<std::size_t>(m) * v);
    for (int c = 0; c < v; ++c)
      for (int k = 0; k < m; ++k)
        prog.push_back(sched::makeAction(OpKind::F, c * p + r, k));
    for (int c = v - 1; c >= 0; --c)
      for (int k = m - 1; k >= 0; --k)
        prog.push_back(sched::makeAction(OpKind::B, c * p + r, k));
  }
  return plan;
}

}  // namespace ps::runtime
