#pragma once
// --rank-speed on the cpu backend (HetPipe-style runs, measured): a rank of speed s among ranks
// whose fastest has speed s_max does each compute op's real work, then waits until the op has
// lasted s_max / s of what the work took, so the recorded op is the measured time stretched.
// Sleeping, not spinning, for all but the last moment: the extra time is idle on a shared host,
// so the other ranks' threads run at the speed they would have without the slow rank.

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/cost/CostModel.h"

namespace ps::runtime {

// Per rank of the plan, how many times its measured compute each op is stretched to:
// max(speed) / speed(rank). Empty when every rank runs at the same speed (nothing to stretch).
std::vector<double> computeStretchOf(const CostModel& cost, int ranks);

// Waits until start + (end − start) × stretch on the clock `now` (ns) and returns the time it
// stopped (at least that target); returns `end` at once when stretch <= 1 or the op took no time.
std::int64_t stretchCompute(std::int64_t start, std::int64_t end, double stretch,
                            const std::function<std::int64_t()>& now);

}  // namespace ps::runtime
