#pragma once
// The tensors one compute action moves between stages, as every executor runs it (chains of
// stages): F receives its input activation from the previous stage and sends its output to the
// next; I and B receive the output gradient from the next stage and send the input gradient to
// the previous. One definition, used by RankWorker to run a program and by the cuda backend to
// plan the order of its NCCL calls, so the two can never disagree.

#include <optional>
#include <vector>

#include "runtime/exec/Mailbox.h"
#include "runtime/plan/Plan.h"

namespace ps::runtime {

struct ActionMessage {
  MessageKey key;
  int peer = 0;  // the other end's rank (may be the action's own rank: a local hand-over)
  OpKind kind = OpKind::RECV_F;  // RECV_F, RECV_B, SEND_F or SEND_B
};

struct ActionMessages {
  std::optional<ActionMessage> receive;  // before the compute
  std::optional<ActionMessage> send;     // after it
  // Stage DAGs (GraphPipe): the other predecessors' or successors' messages. F sums what its
  // predecessors send; B and I send the same input gradient to every predecessor and sum the
  // gradients of every successor. Empty on chains (the cuda backend runs chains only).
  std::vector<ActionMessage> moreReceives, moreSends;
};

// For F, I and B; other kinds move nothing. `rank` is the rank running the action.
ActionMessages actionMessages(const Plan& plan, const Action& a);

}  // namespace ps::runtime
