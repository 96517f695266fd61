#include "runtime/plan/ActivationMoves.h"

#include <string>

namespace ps::runtime {

Status checkActivationMoves(const Plan& plan) {
  if (plan.activationMoves.empty()) return {};
  if (plan.forwardOnly)
    return Error{"--balance-activations: a forward-only plan keeps no activations to move"};
  if (plan.recompute)
    return Error{
        "--balance-activations with --recompute: BPipe moves whole activations "
        "instead of recomputing them; choose one"};
  std::vector<char> seen(
      static_cast<std::size_t>(plan.numStages) * static_cast<std::size_t>(plan.numMicrobatches()),
      0);
  for (const ActivationMove& m : plan.activationMoves) {
    const std::string what = "activation move of stage " + std::to_string(m.stage) +
                             ", micro-batch " + std::to_string(m.microbatch);
    if (m.stage < 0 || m.stage >= plan.numStages || m.microbatch < 0 ||
        m.microbatch >= plan.numMicrobatches())
      return Error{what + ": no such stage or micro-batch"};
    const int owner = plan.rankOf(m.stage, m.microbatch);
    if (m.holder < 0 || m.holder >= plan.numRanks || m.holder == owner)
      return Error{what + ": holder rank " + std::to_string(m.holder) +
                   " must be another of the plan's " + std::to_string(plan.numRanks) +
                   " ranks than its own (" + std::to_string(owner) + ")"};
    char& s = seen[static_cast<std::size_t>(m.stage) * plan.numMicrobatches() + m.microbatch];
    if (s) return Error{what + ": moved twice"};
    s = 1;
  }
  return {};
}

std::vector<MoveInstance> moveInstances(const Plan& plan, const OpGraph& graph) {
  std::vector<MoveInstance> out;
  if (plan.activationMoves.empty()) return out;
  const auto M = static_cast<std::size_t>(plan.numMicrobatches());
  std::vector<std::int32_t> moveOf(static_cast<std::size_t>(plan.numStages) * M, -1);
  out.resize(plan.activationMoves.size() * static_cast<std::size_t>(plan.steps));
  for (std::size_t j = 0; j < plan.activationMoves.size(); ++j) {
    const ActivationMove& m = plan.activationMoves[j];
    moveOf[static_cast<std::size_t>(m.stage) * M + static_cast<std::size_t>(m.microbatch)] =
        static_cast<std::int32_t>(j);
    for (int k = 0; k < plan.steps; ++k) {
      MoveInstance& in = out[j * static_cast<std::size_t>(plan.steps) + k];
      in.owner = plan.rankOf(m.stage, m.microbatch);
      in.holder = m.holder;
      in.stage = m.stage;
      in.microbatch = m.microbatch;
      in.step = k;
    }
  }
  for (std::size_t i = 0; i < graph.computeCount; ++i) {
    const Action& a = graph.actions[i];
    if (a.stage < 0 || a.microbatch < 0) continue;
    if (a.kind != OpKind::F && a.kind != OpKind::B && a.kind != OpKind::I) continue;
    const std::int32_t j =
        moveOf[static_cast<std::size_t>(a.stage) * M + static_cast<std::size_t>(a.microbatch)];
    if (j < 0) continue;
    MoveInstance& in = out[static_cast<std::size_t>(j) * plan.steps + a.step];
    const auto id = static_cast<std::int32_t>(i);
    if (a.kind == OpKind::F) {
      in.forward = id;
    } else {
      in.backward = id;
      // The op before it on the rank; the first op of a program has none (then the F itself).
      in.trigger = id > graph.rankBegin[graph.rank[i]] ? id - 1 : id;
    }
  }
  return out;
}

}  // namespace ps::runtime
