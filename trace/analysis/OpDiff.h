#pragma once
// Two runs op by op (issue 36 §4, `compare A B --ops`): compute ops matched by (rank, stage,
// kind, micro-batch, step) — the stage is the virtual stage, so the chunk is in it; the k-th of
// equal keys with the k-th — each with its start relative to its step's start and its duration
// in both runs; ops of one run only are listed. And the bubble's change split by idle cause, in
// points of the step ("+3.10 pts transfer, -1.20 pts warm-up").

#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/RunExplanation.h"

namespace ps::trace {

struct DiffOp {
  int rank = 0;
  OpKind kind = OpKind::F;
  std::int32_t stage = kNoValue, microbatch = kNoValue, step = 0;
};

struct OpMove {
  DiffOp op;
  std::int64_t startA = 0, startB = 0;  // from the op's step's start in each run
  std::int64_t durationA = 0, durationB = 0;
  std::int64_t deltaStart() const { return startB - startA; }
  std::int64_t deltaDuration() const { return durationB - durationA; }
  std::int64_t size() const;  // the larger of |Δstart| and |Δduration|
};

struct OpDiff {
  std::vector<OpMove> moves;  // every matched op, largest move first
  std::vector<DiffOp> onlyA, onlyB;
  // Per idle cause, B's points of the step less A's (RunExplanation::points), and the bubbles.
  std::array<double, kIdleCauseCount> causePoints{};
  double bubblePointsA = 0, bubblePointsB = 0;
  // Per rank of B, per compute-lane op: its Δstart against A (kUnmatched: A has no such op), for
  // the app's tint of B's timeline.
  static constexpr std::int64_t kUnmatched = INT64_MIN;
  std::vector<std::vector<std::int64_t>> deltaStartOfB;
};

// The explanations give the bubble's split by cause; without them (a run too large to explain)
// it is left at zero.
OpDiff diffOps(const RunTrace& a, const RunExplanation* whyA, const RunTrace& b,
               const RunExplanation* whyB);

// "r0:2F5" (rank, stage, kind, micro-batch), " step 3" when not step 0.
std::string diffOpLabel(const DiffOp& op);
// The text `compare --ops` prints: the waterfall line, the `top` largest moves, the unmatched.
std::string opDiffText(const OpDiff& diff, std::size_t top = 20);
// {"matched", "only_a", "only_b", "bubble_change_points": {cause: pts}, "moves": [top ...],
//  "unmatched_a": [...], "unmatched_b": [...]} (at most `top` of each list).
std::string opDiffJson(const OpDiff& diff, std::size_t top = 20);

}  // namespace ps::trace
