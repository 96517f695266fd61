#include "runtime/sim/OpCosts.h"

#include <algorithm>
#include <cmath>

#include "runtime/sim/Simulator.h"

namespace ps::runtime::sim {
std::int64_t roundNs(double ns) {
  if (!(ns > 0)) return 0;  // negative and NaN (never produced by checked cost models) are 0
  if (ns >= 9.2e18) return INT64_MAX;
  return static_cast<std::int64_t>(std::llround(ns));
}

std::string timeOverflow(const std::string& where, std::int64_t start, std::int64_t add) {
  const auto show = [](std::int64_t v) {
    return v == INT64_MAX ? std::string(">= 9.2e18") : std::to_string(v);
  };
  return "simulated time exceeds 2^52 ns (52 days, the most a trace holds) at " + where + " (" +
         show(start) + " ns + " + show(add) + " ns); shorten the costs or the plan";
}

bool allLinksFree(const CostModel& cost) {
  if (cost.defaultLink.bytesPerNs > 0) return false;
  for (const auto& [pair, link] : cost.links)
    if (link.bytesPerNs > 0) return false;
  return true;
}

OpCosts::OpCosts(const Plan& plan, const CostModel& cost) : plan_(plan), cost_(cost) {
  durations_.assign(static_cast<std::size_t>(plan.numReplicas()) * plan.numStages * kKindSlots, -1);
  boundary_.resize(static_cast<std::size_t>(plan.numStages));
  for (int s = 0; s < plan.numStages; ++s)
    boundary_[s] = boundaryBytes(plan, cost, s);
  uniformLinks_ = cost.links.empty();
  freeLinks_ = allLinksFree(cost);
  defaultLatency_ = roundNs(cost.defaultLink.latencyNs);
}

// Fills the cache on first use; scaled micro-batches are computed each time.
std::int64_t OpCosts::durationSlow(const Action& a, int rank) {
  const int kindSlot = static_cast<int>(a.kind);
  if (a.stage < 0 || a.microbatch < 0 || kindSlot >= kKindSlots ||
      plan_.microbatches[a.microbatch].costScale != 1.0)
    return opDurationNs(plan_, cost_, a, rank);
  const std::size_t key =
      (static_cast<std::size_t>(plan_.replicaOf(a.microbatch)) * plan_.numStages + a.stage) *
          kKindSlots +
      kindSlot;
  std::int64_t& d = durations_[key];
  if (d < 0) d = opDurationNs(plan_, cost_, a, rank);
  return d;
}

std::int64_t OpCosts::transferBytes(OpKind sendKind, int producerStage, int consumerStage,
                                    int microbatch) const {
  const std::int64_t bytes = boundary_[sendKind == OpKind::SEND_F ? producerStage : consumerStage];
  const double scale = plan_.microbatches[microbatch].costScale;
  if (scale == 1.0) return bytes;
  const double scaled = static_cast<double>(bytes) * scale;
  return scaled >= 9.2e18 ? INT64_MAX : static_cast<std::int64_t>(std::max(0.0, scaled));
}

std::int64_t OpCosts::latency(int src, int dst) const {
  return uniformLinks_ ? defaultLatency_ : roundNs(cost_.link(src, dst).latencyNs);
}

}  // namespace ps::runtime::sim
