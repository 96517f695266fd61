// DualPipeV — DeepSeek-AI: "DeepSeek-V3 Technical Report", arXiv:2412.19437, 2024 (§3.2.1,
// DualPipe), in its V-shape "cut-in-half" form (DeepSeek's DualPipe repository credits the
// cut-in-half idea to Sea AI Lab; it is the V placement of the zero-bubble papers).
//
// DualPipe feeds micro-batches from both ends of a pipeline whose ranks each hold one stage of
// either direction; cutting it in half gives p ranks with two chunks each in a V (stage s on
// rank s for s < p, on rank 2p-1-s after), the placement of ZB-V. The order: a warm-up of 2p+1
// forwards (F0^(2p-1-2r) (F1 F0)^(r+1) on rank r), then a steady state in which each rank
// alternates forwards of one chunk with backwards of the other — DualPipe overlaps such a pair
// so that one chunk's communication hides under the other's computation (Action::overlapNext,
// torch's "(0F7;7B3)OVERLAP_F_B") — and a cool-down whose W passes fill the bubbles (the
// zero-bubble backward split). It is derived by the unit-time list scheduler with F = I = W and
// at most 2p+1 chunk activations per rank — the paper's PP+1 with PP = 2p stages — and a forward
// and an I are paired only where both were ready when the pair starts, so the overlap never
// delays either. The paper's bubble is (PP/2-1)(F&B + B - 3W) = (p-1)(F&B + B - 3W) per rank:
// 2(p-1) units when the pair runs as F + B (F&B = 3, B = 2, W = 1); this order idles p-1.
// Constraints: v = 2 (fixed), m >= 2p (DualPipe keeps two micro-batches per stage in flight).

#include <algorithm>
#include <vector>

#include "runtime/schedules/Generators.h"
#include "runtime/schedules/ScheduleUtil.h"
#include "runtime/schedules/VShapeListOrder.h"

namespace ps::runtime {
namespace {

// Pairs each forward with the next op when that is an I of the other chunk and both were ready
// when the forward started: one overlapped unit that starts no later than the two did alone.
void markOverlaps(Plan& plan, const sched::ListScheduleResult& order) {
  const int p = plan.numRanks, S = plan.numStages, M = plan.numMicrobatches();
  // End times of F (slot 0) and I (slot 1) per stage and micro-batch; every op takes one unit.
  std::vector<std::int64_t> ends(2 * static_cast<std::size_t>(S) * M, 0);
  auto slot = [&](OpKind k, int s, int mb) -> std::int64_t& {
    return ends[(static_cast<std::size_t>(k == OpKind::I) * S + s) * M + mb];
  };
  for (int r = 0; r < p; ++r)
    for (std::size_t i = 0; i < order.programs[r].size(); ++i) {
      const Action& a = order.programs[r][i];
      if (a.kind != OpKind::W) slot(a.kind, a.stage, a.microbatch) = order.start[r][i] + 1;
    }
  auto end = [&](OpKind k, int s, int mb) { return slot(k, s, mb); };
  auto readyAt = [&](const Action& a) -> std::int64_t {
    if (a.kind == OpKind::F) return a.stage == 0 ? 0 : end(OpKind::F, a.stage - 1, a.microbatch);
    std::int64_t t = end(OpKind::F, a.stage, a.microbatch);
    if (a.stage + 1 < plan.numStages) t = std::max(t, end(OpKind::I, a.stage + 1, a.microbatch));
    return t;
  };
  for (int r = 0; r < p; ++r) {
    auto& prog = plan.programs[r];
    for (std::size_t i = 0; i + 1 < prog.size(); ++i) {
      const Action& f = prog[i];
      const Action& b = prog[i + 1];
      if (f.kind != OpKind::F || b.kind != OpKind::I || (f.stage >= p) == (b.stage >= p)) continue;
      const std::int64_t t0 = order.start[r][i];
      if (order.start[r][i + 1] != t0 + 1 || readyAt(f) > t0 || readyAt(b) > t0) continue;
      prog[i].overlapNext = true;
      ++i;  // an action belongs to at most one pair
    }
  }
}

}  // namespace

Result<Plan> generateDualPipeV(const ScheduleParams& params) {
  const std::string name = "dualpipe-v";
  PS_TRY(checkBasicParams(name, params));
  const int p = params.ranks, m = params.microbatches;
  if (m < 2 * p) return sched::constraintError(name, "m >= 2p", {{"m", m}, {"p", p}});
  Plan plan = sched::vShapeSkeleton(name, p, m);
  auto order = sched::vShapeListOrder(plan, 2 * p + 1);
  PS_TRY(order);
  plan.programs = order->programs;
  markOverlaps(plan, *order);
  return plan;
}

}  // namespace ps::runtime
