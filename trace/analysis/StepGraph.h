#pragma once
// A recorded run seen as its steps' dependency graphs (DESIGN §2's kind rules, OpRelations):
// per rank and step the compute ops in start order, each step's extent, each rank's compute load,
// and for any compute op the input it waited for last and the compute op behind that input. The
// bubble attribution and the critical path both read it. Built once, O(n log n).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/EndOrder.h"
#include "trace/analysis/OpRef.h"
#include "trace/analysis/OpRelations.h"

namespace ps::trace {

// Kinds of the pipeline proper: the warm-up ends at a rank's first of them, the drain starts at
// its last (DESIGN §4's busy kinds less OPT and FILL).
constexpr bool isPipelineCompute(OpKind k) {
  return k == OpKind::F || k == OpKind::B || k == OpKind::I || k == OpKind::W || k == OpKind::R;
}

// The distinct step numbers of the run's compute ops, ascending (one sort over every rank).
std::vector<int> distinctComputeSteps(const RunTrace& run);

class StepGraph {
 public:
  explicit StepGraph(const RunTrace& run);
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;

  const RunTrace& run() const { return run_; }
  const RelationIndex& relations() const { return relations_; }

  // The distinct step numbers of the compute ops, ascending; "k" below indexes this list.
  const std::vector<int>& steps() const { return steps_; }
  std::optional<std::size_t> stepIndex(int step) const;

  struct Extent {
    std::int64_t start = 0, end = 0;  // earliest start, latest end of the step's compute ops
    std::int64_t pipelineEnd = 0;     // latest end of its pipeline ops (start when none)
    std::int64_t span() const;
  };
  const Extent& extent(std::size_t k) const { return extents_[k]; }

  // Compute-lane indices of rank r's ops in step k, by start (empty when it has none).
  std::span<const std::size_t> ops(int rank, std::size_t k) const;
  // Sum of rank r's pipeline-op durations in step k: its share of the work.
  std::int64_t load(int rank, std::size_t k) const;

  struct Wait {
    OpRef input;               // the input that ended last (a RECV, or a compute op)
    std::int64_t readyNs = 0;  // its end: the op could not start before
    OpRef producer;            // the compute op behind it (itself for a compute input)
    std::int64_t producerEndNs = 0;
  };
  // For a compute op: its latest-ending input, nullopt when it has none recorded. An OPT's inputs
  // are its step's B and W ops (its rank's alone when the run has no optimizer barrier).
  std::optional<Wait> latestInput(const OpRef& op) const;
  // Every input of a compute op (not an OPT's: see gradientsDone), each as latestInput describes
  // its latest one.
  std::vector<Wait> inputWaits(const OpRef& op) const;
  // What an optimizer step of rank r in step k waits for: the gradient op (B or W) that ended
  // last, of every rank, or of r's alone when the run has no optimizer barrier.
  std::optional<Wait> gradientsDone(int rank, std::size_t k) const;

  // The op before compute op `op` on its rank in its step that ended last (an imported lane may
  // overlap itself): what held the rank before it. Precomputed, O(1).
  std::optional<OpRef> previousOnRank(const OpRef& op) const;
  // The send before `send` on the same link (lane and peer): a send queues behind it. O(1).
  std::optional<OpRef> previousOnLink(const OpRef& send) const;
  // The op of `lane` (Compute or Collective) on `op`'s rank and in its step that ended last
  // at or before op's start and began before it (so a chain of such hops always goes back in time);
  // nullopt when none. O(log n).
  std::optional<OpRef> endedBefore(Lane lane, const OpRef& op) const;
  // The same on another rank: the op of `lane` on `rank` in `step` that ended last at or before t.
  std::optional<OpRef> endedBy(Lane lane, int rank, std::int32_t step, std::int64_t t) const;
  // Whether the run records any collective op (AR, A2A, OFFLOAD, RELOAD).
  bool hasCollectives() const { return !collectiveEnds_.empty(); }

 private:
  struct RankStep {
    std::size_t k = 0;               // step index
    std::size_t begin = 0, end = 0;  // range in order_[rank]
    std::int64_t load = 0;
    OpRef lastGrad;  // the B or W that ended last
    std::int64_t lastGradEnd = 0;
  };
  const RankStep* rankStep(int rank, std::size_t k) const;
  Wait waitOn(const OpRef& input) const;

  const RunTrace& run_;
  RelationIndex relations_;
  std::vector<int> steps_;
  std::vector<Extent> extents_;
  std::vector<OpRef> stepLastGrad_;  // per step, over every rank
  std::vector<std::int64_t> stepLastGradEnd_;
  std::vector<std::vector<std::size_t>> order_;       // per rank: compute indices by (step, start)
  std::vector<std::vector<RankStep>> rankSteps_;      // per rank, by k
  std::vector<std::vector<std::size_t>> heldBefore_;  // per rank, per compute op (kNone: none)
  std::vector<std::vector<std::size_t>> linkBefore_;  // per rank, per send (kNone: none)
  EndOrder collectiveEnds_;
  std::optional<EndOrder> computeEnds_;  // only when the run has collectives
};

}  // namespace ps::trace
