#pragma once
// Slack per op (issue 36 §3): how much longer a compute op could take, everything else as
// recorded, before its step ends later. The critical-path method over each step's dependency
// graph, backwards from the step's end: an op's latest finish is the least of its successors'
// latest starts (their latest finish less their duration) and the step's end; its slack is that
// less its end. The graph is StepGraph's: each op's inputs (DESIGN §2's kind rules, sends and
// receives included: a receive ends its transit after its send ends, which a later send moves)
// and, on each rank, the ops that ended before it started (in-order streams). Two ops that start
// together on one rank (an overlapped unit, DualPipeV) start together however late either is
// ready, so each is as late as the earlier of the two may start.
//
// Exact for the simulator's runs on free links (each op then starts when its last input is
// there); transfers that queue on a busy link are taken as recorded, so a recorded run's slack
// is what its recorded order allows. Ops on the critical path have zero slack.

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "trace/analysis/StepGraph.h"

namespace ps::trace {

inline constexpr std::int64_t kNoSlack = -1;

struct OpSlackTable {
  // Per rank, per compute-lane op: its slack in ns (kNoSlack for ops of no step).
  std::vector<std::vector<std::int64_t>> compute;
  // Per (stage, kind): the least slack of its ops (how much every one of them could grow).
  std::map<std::pair<int, OpKind>, std::int64_t> leastByStageKind;
};

OpSlackTable opSlack(const StepGraph& graph);

}  // namespace ps::trace
