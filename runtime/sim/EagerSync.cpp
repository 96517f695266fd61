#include "runtime/sim/EagerSync.h"

#include <algorithm>

#include "runtime/sim/OpCosts.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime::sim {

EagerSync::EagerSync(const Plan& plan, const CostModel& cost)
    : plan_(plan),
      exchanges_(static_cast<std::size_t>(plan.numRanks)),
      lastBackwardEnd_(static_cast<std::size_t>(plan.steps) *
                           static_cast<std::size_t>(plan.numReplicas()) *
                           static_cast<std::size_t>(plan.numStages),
                       0),
      updateNs_(static_cast<std::size_t>(plan.numRanks) * static_cast<std::size_t>(plan.steps), -1),
      lag_(std::max(0, plan.waveStaleness)),
      laneFree_(static_cast<std::size_t>(plan.numRanks), 0) {
  // Each exchange over its pair's own link: eager exchanges start one by one, not all at once.
  for (int r = 0; r < plan.numRanks; ++r)
    forEachExchange(plan, cost, r, [&](const GradientExchange& e) {
      const LinkCost& link = cost.link(r, e.twin);
      double ns = link.latencyNs;
      if (link.bytesPerNs > 0) ns += e.bytes / link.bytesPerNs;
      exchanges_[r].push_back({e, roundNs(ns)});
    });
}

std::size_t EagerSync::slot(int step, int replica, int stage) const {
  return (static_cast<std::size_t>(step) * static_cast<std::size_t>(plan_.numReplicas()) +
          static_cast<std::size_t>(replica)) *
             static_cast<std::size_t>(plan_.numStages) +
         static_cast<std::size_t>(stage);
}

void EagerSync::onBackwardEnd(const Action& a, std::int64_t end) {
  if (a.step < 0 || a.step >= plan_.steps || a.microbatch < 0) return;
  auto& last = lastBackwardEnd_[slot(a.step, plan_.replicaOf(a.microbatch), a.stage)];
  last = std::max(last, end);
}

std::int64_t EagerSync::exchange(int rank, int step) {
  // Every exchange of the rank, ready once both holders of the stage are done with it.
  std::vector<std::pair<std::int64_t, const Exchange*>> ready;
  for (const Exchange& e : exchanges_[rank])
    ready.emplace_back(std::max(lastBackwardEnd_[slot(step, e.what.replica, e.what.stage)],
                                lastBackwardEnd_[slot(step, e.what.twinReplica, e.what.stage)]),
                       &e);
  std::sort(ready.begin(), ready.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::int64_t& lane = laneFree_[static_cast<std::size_t>(rank)];
  std::int64_t last = 0;
  for (const auto& [at, e] : ready) {
    const std::int64_t begin = std::max(lane, at);
    lane = last = begin + e->ns;
    log_.push_back({begin, lane, static_cast<std::int64_t>(e->what.bytes), rank, e->what.stage,
                    step, e->what.twin});
  }
  return last;
}

std::int64_t EagerSync::optDuration(int rank, int step, std::int64_t start, std::int64_t updateNs) {
  const std::int64_t exchanged = step - lag_ >= 0 ? exchange(rank, step - lag_) : 0;
  updateNs_[static_cast<std::size_t>(rank) * static_cast<std::size_t>(plan_.steps) +
            static_cast<std::size_t>(step)] = updateNs;
  return std::max(exchanged, start) - start + updateNs;
}

void EagerSync::finish(SimResult& out) {
  // The updates of the last `lag` steps still reach the other replicas, after every step.
  for (int rank = 0; rank < plan_.numRanks; ++rank)
    for (int step = std::max(0, plan_.steps - lag_); step < plan_.steps; ++step)
      exchange(rank, step);
  for (SimRecord& r : out.records)
    if (r.kind == OpKind::OPT && r.step >= 0 && r.step < plan_.steps) {
      const std::int64_t update =
          updateNs_[static_cast<std::size_t>(r.rank) * static_cast<std::size_t>(plan_.steps) +
                    static_cast<std::size_t>(r.step)];
      if (update >= 0) r.start_ns = r.end_ns - update;
    }
  for (const Logged& l : log_)
    out.records.push_back(
        {l.start, l.end, l.bytes, l.rank, l.stage, -1, l.step, l.twin, OpKind::AR});
}

}  // namespace ps::runtime::sim
