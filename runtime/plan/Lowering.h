#pragma once
// Communication lowering (DESIGN §2): turns a plan's compute programs into per-rank programs with
// SEND/RECV actions wherever a data dependency crosses ranks, in the spelling torch's
// `compute_comms` CSVs use:
//   F(s,m) → F(s',m) on another rank:   SEND_F (stage s, peer = consumer rank) right after the
//                                       producer, RECV_F (stage s', peer = producer rank) right
//                                       before the consumer;
//   B/I(s,m) → B/I(s',m) on another rank: SEND_B / RECV_B likewise.
// Other cross-rank edges (optimizer barriers, a plan's extra ordering edges) move no data and get
// no actions. An overlap unit (overlapNext) is never split: sends follow the whole unit and
// receives precede it.

#include <vector>

#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"

namespace ps::runtime {

// `graph` must be buildOpGraph(plan). Returns one program per rank, compute actions in their
// original order with the communication actions inserted.
[[nodiscard]] std::vector<std::vector<Action>> lowerCommunication(const Plan& plan,
                                                                  const OpGraph& graph);

}  // namespace ps::runtime
