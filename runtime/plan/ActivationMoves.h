#pragma once
// BPipe's activation moves (Plan::activationMoves) checked and resolved against a plan's graph:
// for every moved (stage, micro-batch) and step, the node ids of its F, of its first backward op
// (B, or I when the backward is split) and of the op before that one on the rank (the RELOAD's
// trigger). Shared by the validator, the simulator and the cpu backend.

#include <cstdint>
#include <vector>

#include "runtime/plan/OpGraph.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

struct MoveInstance {
  std::int32_t forward = -1;   // F(s, m) of the step
  std::int32_t backward = -1;  // the first backward op: waits for the RELOAD
  std::int32_t trigger = -1;   // the op before `backward` on its rank: the RELOAD starts with it
  int owner = -1, holder = -1;
  int stage = -1, microbatch = -1, step = 0;
};

// Errors name the move: a stage or micro-batch out of range, a holder that is not another rank,
// a (stage, micro-batch) moved twice, and plans that keep no activations to move (forward-only)
// or move something else (recompute keeps only the stage input: BPipe replaces recompute).
[[nodiscard]] Status checkActivationMoves(const Plan& plan);

// One instance per move and step, ordered by (move, step). `graph` must be buildOpGraph(plan)'s.
std::vector<MoveInstance> moveInstances(const Plan& plan, const OpGraph& graph);

}  // namespace ps::runtime
