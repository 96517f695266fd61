// nF1B — A. Dutta, N. Chaki, R. K. De: "TiMePReSt: Time and Memory Efficient Pipeline Parallel
// DNN Training with Removed Staleness", Future Generation Computer Systems 178 (2026),
// arXiv:2410.14312.
//
// Asynchronous 1F1B over whole mini-batches: a step is a mini-batch of n = m micro-batches,
// forwarded one micro-batch at a time, and its backward is one pass over the mini-batch's mean
// loss (here its n micro-batch backwards back to back, their gradients adding up), followed by
// the stage's update. Rank r forwards p-1-r mini-batches to warm up, then alternates the n
// forwards of the next mini-batch with the backward of its oldest, so that a backward is taken as
// soon as it can be and several mini-batches stay in flight; no flush between steps, no barrier.
// Weights: PipeDream's stash by default (the paper's ablation "variant 1"); TiMePReSt itself runs
// every pass on the latest weights (--weight-versions latest), I-TiMePReSt on a blend of the two
// (--weight-versions blend). Constraints: none beyond positive sizes (one stage per rank).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"

namespace ps::runtime {

Result<Plan> generateNF1B(const ScheduleParams& params) {
  PS_TRY(checkBasicParams("nf1b", params));
  const int p = params.ranks, m = params.microbatches, steps = params.steps;
  Plan plan = planSkeleton("nf1b", p, p, m, [](int s) { return s; });
  plan.steps = steps;
  plan.versioning = WeightVersioning::Stashed;
  plan.optimizerSync = OptimizerSync::None;  // each rank updates once its backward is done
  for (int r = 0; r < p; ++r) {
    auto& prog = plan.programs[r];
    prog.reserve(2 * static_cast<std::size_t>(steps) * m + steps);
    for (auto [step, fwd] : sched::oneFOneBSequence(p - 1 - r, steps)) {
      for (int mb = 0; mb < m; ++mb)
        prog.push_back(sched::makeAction(fwd ? OpKind::F : OpKind::B, r, mb, step));
      if (!fwd) prog.push_back(sched::optAction(step));
    }
  }
  return plan;
}

}  // namespace ps::runtime
