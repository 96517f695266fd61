#include "trace/analysis/PresentRanks.h"

#include <algorithm>

namespace ps::trace {

bool rankPresent(const RankTrace& rank) {
  const bool hasOps = std::any_of(rank.lanes.begin(), rank.lanes.end(),
                                  [](const OpColumns& c) { return !c.empty(); });
  return hasOps || rank.memory.size() > 0 || rank.info.host || rank.info.device ||
         rank.info.memory_capacity_bytes;
}

std::vector<bool> presentRankMask(const RunTrace& run) {
  std::vector<bool> mask(run.ranks.size());
  bool any = false;
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    any |= mask[r] = rankPresent(run.ranks[r]);
  // A run with nothing written yet keeps the ranks its rows name.
  if (!any) mask.assign(run.ranks.size(), true);
  return mask;
}

std::size_t presentRankCount(const RunTrace& run) {
  const auto mask = presentRankMask(run);
  return static_cast<std::size_t>(std::count(mask.begin(), mask.end(), true));
}

}  // namespace ps::trace
