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
  // Chains only: the first neighbour (RankWorker refuses stage DAGs).
  if (forward) {
    if (!preds.empty())
      m.receive = ActionMessage{{false, a.stage, replica, a.microbatch, a.step, preds.front()},
                                rankOf(preds.front()),
                                OpKind::RECV_F};
    if (!succs.empty())
      m.send = ActionMessage{{false, succs.front(), replica, a.microbatch, a.step, a.stage},
                             rankOf(succs.front()),
                             OpKind::SEND_F};
  } else {
    if (!succs.empty())
      m.receive = ActionMessage{{true, a.stage, replica, a.microbatch, a.step, succs.front()},
                                rankOf(succs.front()),
                                OpKind::RECV_B};
    if (!preds.empty())
      m.send = ActionMessage{{true, preds.front(), replica, a.microbatch, a.step, a.stage},
                             rankOf(preds.front()),
                             OpKind::SEND_B};
  }
  return m;
}

}  // namespace ps::runtime
