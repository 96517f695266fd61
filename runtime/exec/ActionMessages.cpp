#include "runtime/exec/ActionMessages.h"

namespace ps::runtime {

ActionMessages actionMessages(const Plan& plan, const Action& a) {
  ActionMessages m;
  const bool forward = a.kind == OpKind::F;
  if (!forward && a.kind != OpKind::I && a.kind != OpKind::B) return m;
  const int replica = plan.replicaOf(a.microbatch);
  const auto rankOf = [&](int stage) { return plan.placement[replica][stage].rank; };
  const auto preds = plan.predecessors(a.stage);
  const auto succs = plan.successors(a.stage);
  // F receives from its predecessors and sends to its successors; I and B the other way.
  const auto& from = forward ? preds : succs;
  const auto& to = forward ? succs : preds;
  for (std::size_t i = 0; i < from.size(); ++i) {
    const ActionMessage msg{{!forward, a.stage, replica, a.microbatch, a.step, from[i]},
                            rankOf(from[i]),
                            forward ? OpKind::RECV_F : OpKind::RECV_B};
    if (i == 0)
      m.receive = msg;
    else
      m.moreReceives.push_back(msg);
  }
  for (std::size_t i = 0; i < to.size(); ++i) {
    const ActionMessage msg{{!forward, to[i], replica, a.microbatch, a.step, a.stage},
                            rankOf(to[i]),
                            forward ? OpKind::SEND_F : OpKind::SEND_B};
    if (i == 0)
      m.send = msg;
    else
      m.moreSends.push_back(msg);
  }
  return m;
}

}  // namespace ps::runtime
