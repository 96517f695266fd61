#include "ui/timeline/StageChunks.h"

#include <algorithm>
#include <map>
#include <utility>

namespace ps::ui {

StageChunks::StageChunks(const std::vector<trace::StageRecord>& stages) {
  std::map<int, int> seen;  // stage -> rows so far: the row's replica
  for (const auto& s : stages) {
    const int replica = seen[s.stage]++;
    if (std::any_of(entries_.begin(), entries_.end(),
                    [&](const Entry& e) { return e.rank == s.rank && e.stage == s.stage; }))
      continue;  // a rank listing one stage twice: the first row stands
    entries_.push_back({s.rank, s.stage, {0, replica}});
  }
  finish();
}

StageChunks::StageChunks(const trace::RunTrace& run) : StageChunks(run.stages) {
  if (replicas_ < 2) return;
  // Replica j starts on the j-th lowest rank holding the first stage; a micro-batch's forwards
  // all run on the replica of its first-stage rank.
  int first = INT32_MAX;
  for (const auto& s : run.stages)
    first = std::min(first, s.stage);
  std::vector<int> firstRanks;
  for (const auto& s : run.stages)
    if (s.stage == first) firstRanks.push_back(s.rank);
  std::sort(firstRanks.begin(), firstRanks.end());
  std::map<int, int> replicaOf;  // micro-batch -> replica
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const auto& lane = run.ranks[r].lane(trace::Lane::Compute);
    // Sorted: a binary search keeps a long stage table from making this ranks × stages.
    const auto at = std::lower_bound(firstRanks.begin(), firstRanks.end(), static_cast<int>(r));
    if (at == firstRanks.end() || *at != static_cast<int>(r)) continue;
    for (std::size_t i = 0; i < lane.size(); ++i)
      if (lane.kind[i] == trace::OpKind::F && lane.stage[i] == first && lane.microbatch[i] >= 0)
        replicaOf[lane.microbatch[i]] = static_cast<int>(at - firstRanks.begin());
  }
  if (replicaOf.empty()) return;  // no forwards to tell by: keep the table's order
  std::map<std::pair<int, int>, int> pairReplica;
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const auto& lane = run.ranks[r].lane(trace::Lane::Compute);
    for (std::size_t i = 0; i < lane.size(); ++i) {
      const auto it = replicaOf.find(lane.microbatch[i]);
      if (it != replicaOf.end() && lane.stage[i] >= 0)
        pairReplica.emplace(std::pair(static_cast<int>(r), lane.stage[i]), it->second);
    }
  }
  for (auto& e : entries_)
    if (const auto it = pairReplica.find({e.rank, e.stage}); it != pairReplica.end())
      e.info.replica = it->second;
  finish();
}

void StageChunks::finish() {
  std::map<std::pair<int, int>, std::vector<int>> perRankReplica;  // (rank, replica) -> stages
  chunks_ = replicas_ = 1;
  for (const auto& e : entries_) {
    perRankReplica[{e.rank, e.info.replica}].push_back(e.stage);
    replicas_ = std::max(replicas_, e.info.replica + 1);
  }
  for (auto& [key, list] : perRankReplica) {
    std::sort(list.begin(), list.end());
    chunks_ = std::max(chunks_, static_cast<int>(list.size()));
  }
  for (auto& e : entries_) {
    const auto& list = perRankReplica[{e.rank, e.info.replica}];
    e.info.chunk =
        static_cast<int>(std::lower_bound(list.begin(), list.end(), e.stage) - list.begin());
  }
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return std::pair(a.rank, a.stage) < std::pair(b.rank, b.stage);
  });
}

StageChunks::Info StageChunks::at(int rank, int stage) const {
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), std::pair(rank, stage),
                                   [](const Entry& e, const std::pair<int, int>& key) {
                                     return std::pair(e.rank, e.stage) < key;
                                   });
  if (it == entries_.end() || it->rank != rank || it->stage != stage) return {};
  return it->info;
}

}  // namespace ps::ui
