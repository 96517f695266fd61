#include "trace/store/RunTraceBuilder.h"

#include <algorithm>
#include <tuple>

namespace ps::trace {

std::int32_t OpNameTable::intern(std::string_view name) {
  auto it = index_.find(std::string(name));
  if (it != index_.end()) return it->second;
  const auto id = static_cast<std::int32_t>(names_.size());
  names_.emplace_back(name);
  index_.emplace(names_.back(), id);
  return id;
}

RankTrace& rankSlot(RunTrace& run, int rank) {
  while (static_cast<int>(run.ranks.size()) <= rank) {
    RankTrace r;
    r.info.rank = static_cast<int>(run.ranks.size());
    run.ranks.push_back(std::move(r));
  }
  return run.ranks[rank];
}

namespace {

std::int32_t smallIdOf(const std::optional<int>& v) {
  return v && *v >= 0 ? static_cast<std::int32_t>(*v) : kNoValue;
}

}  // namespace

RunTraceBuilder::RunTraceBuilder(const RunHeader& header) : names_(run_.names) {
  run_.info = header.info;
  for (const RankInfo& rank : header.ranks)
    if (rank.rank >= 0) rankSlot(run_, rank.rank).info = rank;
  run_.stages = header.stages;
  run_.layers = header.layers;
}

void RunTraceBuilder::addOp(const OpRecord& op) {
  const std::int32_t name = op.name ? names_.intern(*op.name) : kNoValue;
  rankSlot(run_, op.rank)
      .lane(laneOf(op.kind))
      .push(op.start_ns, std::max(op.end_ns, op.start_ns), op.kind, smallIdOf(op.stage),
            smallIdOf(op.microbatch), op.step, smallIdOf(op.peer_rank), op.bytes.value_or(kNoValue),
            name);
}

void RunTraceBuilder::addMemory(const MemorySample& sample) {
  MemorySeries& m = rankSlot(run_, sample.rank).memory;
  m.t.push_back(sample.t_ns);
  m.bytes.push_back(sample.bytes);
}

RunTrace RunTraceBuilder::finish(RunStatus status, std::string message) && {
  run_.info.status = status;
  run_.info.status_message = std::move(message);
  for (auto& r : run_.ranks) {
    for (auto& columns : r.lanes)
      columns.sortByStart();
    r.memory.sortByTime();
  }
  // The reader's ORDER BY stage, rank and ORDER BY layer.
  std::stable_sort(run_.stages.begin(), run_.stages.end(), [](const auto& a, const auto& b) {
    return std::tie(a.stage, a.rank) < std::tie(b.stage, b.rank);
  });
  std::stable_sort(run_.layers.begin(), run_.layers.end(),
                   [](const auto& a, const auto& b) { return a.layer < b.layer; });
  run_.info.num_ranks = static_cast<int>(run_.ranks.size());
  return std::move(run_);
}

}  // namespace ps::trace
