// ZB-V — P. Qi, X. Wan, G. Huang, M. Lin: "Zero Bubble Pipeline Parallelism", ICLR 2024 (the
// arXiv version's §6, "memory efficient zero bubble schedule", and §4, optimizer
// post-validation), and P. Qi, X. Wan, N. Amar, M. Lin: "Pipeline Parallelism with Controllable
// Memory", NeurIPS 2024 (V-ZB).
//
// Two chunks per rank in a V: stage s on rank s for s < p and on rank 2p-1-s for s >= p, so a
// micro-batch goes down the ranks and back up, and rank 0 holds both the first and the last
// stage. Rank r's chunk 0 is stage r, its chunk 1 stage 2p-1-r. For m >= 2p-1 the order is the
// paper's handcrafted one (the authors' `get_zb_v_schedule`), with F = I = W = 1 unit per chunk:
//   warm-up:   F0 x (2(p-r)-1), then (F1 F0) x r, then (F1 I1 W1) x (p-r);
//   steady:    (F0 I0 W0 F1 I1 W1) while forwards are left (F0 left out once all m are done);
//   cool-down: (I0 I1) x r, then (I0 W0) x (p-r), then the W1 and W0 still pending.
// Rank r's i-th op then starts at unit r + i, for every op: each rank is busy without a gap over
// [r, r + 6m), so one step is a parallelogram like ZB-H2's — p-1 idle units per rank inside a
// step (the V's start-up skew), 1/6 of 1F1B's 3(p-1) rank units over the same model. Memory is
// exactly 1F1B's on every rank: 2p chunk activations (p micro-batches of a rank's share; F holds
// until W), reached at the warm-up's last F1 and never exceeded (the paper's "balanced" memory).
//
// Steps tile: with OptimizerSync::None (the paper's post-validation; `--optimizer-sync none`)
// rank r's OPT of step k waits only for its own W's, and its step k+1 (after that OPT in its
// program, as for ZB-H2 via repeatSteps) starts at 6m + r, exactly where its step k ends, while
// rank p-1 is still in step k's deferred W's and rank 0 already runs step k+1's warm-up
// forwards. The steady-state bubble (DESIGN §4) is zero — the paper's "zero bubble" — and a rank
// never holds two steps' activations, so the peak stays 2p. With the optimizer barrier every
// step pays the skew: steady-state bubble (p-1)/(6m+p-1).
//
// For m < 2p-1 rank 0's warm-up cannot be filled; the order comes from the unit-time list
// scheduler (VShapeListOrder.h): the same p-1 idle units per rank and step and the same 2p
// peak, but the steps do not tile. Constraints: v = 2 (fixed; params.chunks is ignored).

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"
#include "runtime/schedules/VShapeListOrder.h"

namespace ps::runtime {
namespace {

// The handcrafted order of rank r (see above); needs m >= 2p-1.
std::vector<Action> handcraftedRankOrder(int p, int m, int r) {
  const int s0 = r, s1 = 2 * p - 1 - r;
  std::vector<Action> prog;
  prog.reserve(6 * static_cast<std::size_t>(m));
  int f0 = 0, f1 = 0, i0 = 0, i1 = 0, w0 = 0, w1 = 0;
  auto put = [&](OpKind kind, int stage, int& counter) {
    prog.push_back(sched::makeAction(kind, stage, counter++));
  };
  for (int k = 0; k < 2 * (p - r) - 1; ++k)
    put(OpKind::F, s0, f0);
  for (int k = 0; k < r; ++k) {
    put(OpKind::F, s1, f1);
    put(OpKind::F, s0, f0);
  }
  for (int k = 0; k < p - r; ++k) {
    put(OpKind::F, s1, f1);
    put(OpKind::I, s1, i1);
    put(OpKind::W, s1, w1);
  }
  while (f1 < f0 || f0 < m) {
    if (f0 < m) put(OpKind::F, s0, f0);
    put(OpKind::I, s0, i0);
    put(OpKind::W, s0, w0);
    put(OpKind::F, s1, f1);
    put(OpKind::I, s1, i1);
    put(OpKind::W, s1, w1);
  }
  for (int k = 0; k < r; ++k) {
    put(OpKind::I, s0, i0);
    put(OpKind::I, s1, i1);
  }
  for (int k = 0; k < p - r; ++k) {
    put(OpKind::I, s0, i0);
    put(OpKind::W, s0, w0);
  }
  while (w1 < m)
    put(OpKind::W, s1, w1);
  while (w0 < m)
    put(OpKind::W, s0, w0);
  return prog;
}

}  // namespace

Result<Plan> generateZeroBubbleV(const ScheduleParams& params) {
  const std::string name = "zb-v";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches;
  Plan plan = sched::vShapeSkeleton(name, p, m);
  if (m >= 2 * p - 1) {
    for (int r = 0; r < p; ++r)
      plan.programs[r] = handcraftedRankOrder(p, m, r);
    return plan;
  }
  auto order = sched::vShapeListOrder(plan, 2 * p);
  PS_TRY(order);
  plan.programs = std::move(order->programs);
  return plan;
}

}  // namespace ps::runtime
