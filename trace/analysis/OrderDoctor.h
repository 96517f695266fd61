#pragma once
// The communication-order doctor (issue 36 §2): for each rank whose waits were partly the
// order's (IdleCause::Order), the move that would have used them — run the op that was ready
// just before the op the rank waited for — and what it gains, the step re-timed with the move
// (StepRetime.h) against the step re-timed as recorded. A few of each rank's longest order waits
// are tried; the best is kept, a move that gains nothing included (the report says so).

#include <cstdint>
#include <vector>

#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/StepGraph.h"

namespace ps::trace {

struct OrderMove {
  int rank = 0;
  int step = 0;
  OpRef move;                // the op that was ready
  OpRef before;              // the op the rank waited for
  std::int64_t orderNs = 0;  // the rank's order time over the run
  std::int64_t gainNs = 0;   // the step's span less with the move (re-timed both ways)
};

// At most kRanks ranks, most order time first; moves sorted by gain, largest first.
std::vector<OrderMove> adviseOrderMoves(const StepGraph& graph, const BubbleAttribution& bubbles);

inline constexpr std::size_t kOrderDoctorRanks = 8;
inline constexpr std::size_t kOrderDoctorTries = 4;  // per rank: its longest order waits

}  // namespace ps::trace
