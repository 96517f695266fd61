#include "trace/import/ProcessRanks.h"

#include <algorithm>
#include <set>

namespace ps::trace::import {

std::vector<RawRankTrace> splitProcessesAsRanks(RawRankTrace trace) {
  std::set<int> rankSet;
  for (const auto& [track, rank] : trace.rankOfTrack)
    rankSet.insert(rank);
  for (const auto& [rank, samples] : trace.memoryOfRank)
    rankSet.insert(rank);
  std::vector<RawRankTrace> out;
  if (rankSet.empty()) {
    out.push_back(std::move(trace));
    return out;
  }
  const std::vector<int> ranks(rankSet.begin(), rankSet.end());
  const auto indexOf = [&](int rank) {
    return static_cast<std::size_t>(std::lower_bound(ranks.begin(), ranks.end(), rank) -
                                    ranks.begin());
  };
  std::vector<std::vector<RawEvent>> byRank(ranks.size());
  for (const auto& e : trace.events) {
    const auto it = trace.rankOfTrack.find(e.track);
    byRank[it == trace.rankOfTrack.end() ? 0 : indexOf(it->second)].push_back(e);
  }
  trace.events = {};

  std::vector<std::int32_t> localName(trace.names.size(), -1);  // reset after each rank
  std::vector<std::int32_t> localStated(trace.statedOps.size(), -1);
  std::vector<std::int32_t> touchedNames, touchedStated;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    RawRankTrace part;
    part.file = trace.file;
    part.format = trace.format;
    part.rank = ranks[r];
    part.worldSize = static_cast<int>(ranks.size());
    part.wallClockOffsetNs = trace.wallClockOffsetNs.value_or(0);  // one clock for all parts
    part.sharedClock = true;
    part.host = trace.host;
    part.device = trace.device;
    part.memoryCapacityBytes = trace.memoryCapacityBytes;
    part.steps = trace.steps;  // step markers are few; each part looks its events up in all
    if (r == 0) part.warnings = std::move(trace.warnings);  // said once
    if (auto m = trace.memoryOfRank.find(ranks[r]); m != trace.memoryOfRank.end())
      part.memory = std::move(m->second);
    part.events = std::move(byRank[r]);
    for (auto& e : part.events) {
      if (e.name >= 0) {
        std::int32_t& local = localName[static_cast<std::size_t>(e.name)];
        if (local < 0) {
          local = part.intern(trace.names[static_cast<std::size_t>(e.name)]);
          touchedNames.push_back(e.name);
        }
        e.name = local;
      }
      if (e.stated >= 0) {
        std::int32_t& local = localStated[static_cast<std::size_t>(e.stated)];
        if (local < 0) {
          local = static_cast<std::int32_t>(part.statedOps.size());
          part.statedOps.push_back(trace.statedOps[static_cast<std::size_t>(e.stated)]);
          touchedStated.push_back(e.stated);
        }
        e.stated = local;
      }
      if (const auto id = trace.threadIds.find(e.track); id != trace.threadIds.end())
        part.threadIds.insert(*id);
    }
    for (const std::int32_t name : touchedNames)
      localName[static_cast<std::size_t>(name)] = -1;
    for (const std::int32_t stated : touchedStated)
      localStated[static_cast<std::size_t>(stated)] = -1;
    touchedNames.clear();
    touchedStated.clear();
    out.push_back(std::move(part));
  }
  return out;
}

}  // namespace ps::trace::import
