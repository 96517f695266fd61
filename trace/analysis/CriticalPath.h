#pragma once
// The chain of ops and transfers that sets a step's time: from the op that ends the step, back
// through whatever each op waited for last — a compute op its latest input or, when that was
// ready earlier, the op before it on its rank; a receive its send; a send the compute that
// produced its data or the send before it on the same link; a collective (all-reduce,
// all-to-all, fetch) the compute or collective before it on its rank, and an all-reduce the
// step's gradients; and any of them a collective of its own rank that ended later still (the
// all-reduce that gates the optimizer step, a forward's fetch) — until an op that waited for
// nothing. Each hop is O(log n) (StepGraph's precomputed neighbours), the walk O(path log n).
// With the simulator's in-order execution every link is tight, so the chain runs from the step's
// first start to its last end: its length is the step time. Only ops of the same step are followed.

#include <cstdint>
#include <optional>
#include <vector>

#include "trace/analysis/OpRef.h"
#include "trace/analysis/StepGraph.h"

namespace ps::trace {

struct CriticalPath {
  int step = 0;
  std::int64_t lengthNs = 0;  // last op's end - first op's start (the step's start at the earliest)
  std::vector<OpRef> ops;     // in time order; compute ops and the transfers between them
};

// The path of step index k (StepGraph::steps()); nullopt for a step without ops.
std::optional<CriticalPath> criticalPath(const StepGraph& graph, std::size_t k);
// The path of the longest step (the first of equals): what a run's report shows.
std::optional<CriticalPath> longestStepCriticalPath(const StepGraph& graph);

}  // namespace ps::trace
