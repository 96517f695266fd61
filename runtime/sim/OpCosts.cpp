#include "runtime/sim/OpCosts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

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
  if (cost.topology.present() && cost.topology.interNode.bytesPerNs > 0) return false;
  for (const auto& [pair, link] : cost.links)
    if (link.bytesPerNs > 0) return false;
  return true;
}

OpCosts::OpCosts(const Plan& plan, const CostModel& cost) : plan_(plan), cost_(cost) {
  durations_.assign(static_cast<std::size_t>(plan.numReplicas()) * plan.numStages * kKindSlots, -1);
  boundary_.resize(static_cast<std::size_t>(plan.numStages));
  for (int s = 0; s < plan.numStages; ++s)
    boundary_[s] = boundaryBytes(plan, cost, s);
  uniformLinks_ = cost.links.empty() && !cost.topology.present();
  if (cost.topology.present())
    nodes_ = static_cast<std::size_t>(cost.nodeOf(std::max(0, plan.numRanks - 1)) + 1);
  freeLinks_ = allLinksFree(cost);
  defaultLatency_ = roundNs(cost.defaultLink.latencyNs);
  // Eager sync exchanges stage by stage beside compute; the OPT then waits only for what is left.
  if ((plan.eagerGradientSync || plan.waveStaleness >= 0) && plan.numReplicas() > 1)
    eager_ = std::make_shared<EagerSync>(plan, cost);
  allReduceNs_ = eager_ ? 0 : replicaAllReduceNs(plan, cost);
}

std::int64_t OpCosts::placedEager(const Action& a, int rank, std::int64_t start, std::int64_t d) {
  if (a.kind == OpKind::OPT) return eager_->optDuration(rank, a.step, start, d);
  if (a.kind == OpKind::W || a.kind == OpKind::B) eager_->onBackwardEnd(a, start + d);
  return d;
}

namespace {

// Bytes every rank sends at once over each shared node-to-node link.
std::map<std::pair<int, int>, double> sharedLinkBytes(const Plan& plan, const CostModel& cost) {
  std::map<std::pair<int, int>, double> total;
  if (!cost.topology.present() || !cost.topology.sharedLink) return total;
  for (int r = 0; r < plan.numRanks; ++r)
    forEachExchange(plan, cost, r, [&](const GradientExchange& e) {
      if (cost.crossesNodes(r, e.twin)) total[{cost.nodeOf(r), cost.nodeOf(e.twin)}] += e.bytes;
    });
  return total;
}

std::int64_t exchangeNs(const Plan& plan, const CostModel& cost, int rank,
                        const std::map<std::pair<int, int>, double>& shared) {
  double ns = 0;
  forEachExchange(plan, cost, rank, [&](const GradientExchange& e) {
    double bytes = e.bytes;
    if (cost.crossesNodes(rank, e.twin) && cost.topology.sharedLink)
      bytes = shared.at({cost.nodeOf(rank), cost.nodeOf(e.twin)});
    const LinkCost& link = cost.link(rank, e.twin);
    if (link.bytesPerNs > 0) ns += bytes / link.bytesPerNs;
    ns += link.latencyNs;
  });
  return roundNs(ns);
}

}  // namespace

std::int64_t replicaExchangeNs(const Plan& plan, const CostModel& cost, int rank) {
  return exchangeNs(plan, cost, rank, sharedLinkBytes(plan, cost));
}

std::int64_t replicaAllReduceNs(const Plan& plan, const CostModel& cost) {
  if (plan.numReplicas() < 2) return 0;
  const auto shared = sharedLinkBytes(plan, cost);
  std::int64_t slowest = 0;
  for (int r = 0; r < plan.numRanks; ++r)
    slowest = std::max(slowest, exchangeNs(plan, cost, r, shared));
  return slowest;
}

int replicaTwinOf(const Plan& plan, int rank) {
  for (int k = 0; k < plan.numReplicas(); ++k)
    for (std::size_t s = 0; s < plan.placement[k].size(); ++s) {
      if (plan.placement[k][s].rank != rank) continue;
      for (int other = 0; other < plan.numReplicas(); ++other)
        if (other != k && plan.placement[other][s].rank != rank)
          return plan.placement[other][s].rank;
    }
  return -1;
}

// Fills the cache on first use; scaled micro-batches are computed each time.
std::int64_t OpCosts::durationSlow(const Action& a, int rank) {
  const int kindSlot = static_cast<int>(a.kind);
  // OPT of a replicated plan runs after the all-reduce: simulate() splits the two apart again.
  if (a.kind == OpKind::OPT) {
    std::int64_t total = 0;
    const std::int64_t opt = opDurationNs(plan_, cost_, a, rank);
    return __builtin_add_overflow(opt, allReduceNs_, &total) ? INT64_MAX : total;
  }
  if (a.stage < 0 || a.microbatch < 0 || kindSlot >= kKindSlots || a.kind == OpKind::FILL ||
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
