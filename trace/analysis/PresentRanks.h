#pragma once
// The ranks a run really has. A loaded run indexes its ranks by number (RunTrace::ranks[r] is
// rank r), so one stray row on rank 1,000,000 leaves a million empty slots below it: analyses and
// reports count, average over and list only the ranks present — those with an op, a memory
// sample, or a rank row that says something (host, device, memory capacity).

#include <cstddef>
#include <vector>

#include "trace/RunTrace.h"

namespace ps::trace {

bool rankPresent(const RankTrace& rank);
// Per slot of run.ranks, whether it is present (every slot when none is: a run with nothing
// written yet keeps the ranks its rows name).
std::vector<bool> presentRankMask(const RunTrace& run);
std::size_t presentRankCount(const RunTrace& run);

}  // namespace ps::trace
