#pragma once
// Op durations, transfer sizes and link latencies as both simulation engines need them, looked
// up in O(1) (internal to runtime/sim): opDurationNs walks a stage's layers, far too slow to
// repeat for millions of ops, so durations are cached per (replica, stage, kind) at cost scale 1.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "runtime/sim/EagerSync.h"
#include "runtime/sim/GradientExchange.h"

namespace ps::runtime::sim {

class OpCosts {
 public:
  OpCosts(const Plan& plan, const CostModel& cost);

  // a's duration on `rank` (the rank that holds its stage), plus any what-if the cost model adds
  // to that one op (CostModel::opExtraNs). Inline: once per op.
  std::int64_t duration(const Action& a, int rank) {
    const std::int64_t base = baseDuration(a, rank);
    if (cost_.opExtraNs.empty()) return base;
    const auto it = cost_.opExtraNs.find({a.stage, static_cast<int>(a.kind), a.microbatch, a.step});
    return it == cost_.opExtraNs.end() ? base : base + it->second;
  }
  std::int64_t baseDuration(const Action& a, int rank) {
    const int kind = static_cast<int>(a.kind);
    // FILL runs on any rank, at that rank's speed: not cached per stage.
    if (a.stage >= 0 && a.microbatch >= 0 && kind < kKindSlots && a.kind != OpKind::FILL &&
        plan_.microbatches[a.microbatch].costScale == 1.0) {
      const std::int64_t d = durations_[(static_cast<std::size_t>(plan_.replicaOf(a.microbatch)) *
                                             static_cast<std::size_t>(plan_.numStages) +
                                         static_cast<std::size_t>(a.stage)) *
                                            kKindSlots +
                                        static_cast<std::size_t>(kind)];
      if (d >= 0) return d;
    }
    return durationSlow(a, rank);
  }
  // What the engines call as they place `a` on `rank` at `start`: its duration(), except that
  // under eager gradient sync an OPT also waits for the rank's exchanges (EagerSync.h), which
  // learn from each backward op placed when its stage's gradients are done.
  std::int64_t placed(const Action& a, int rank, std::int64_t start) {
    const std::int64_t d = duration(a, rank);
    return eager_ ? placedEager(a, rank, start, d) : d;
  }
  // The end of a run: eager gradient sync's AR records (nothing without it).
  void finish(SimResult& out) {
    if (eager_) eager_->finish(out);
  }
  // Bytes a transfer carries: activations leave the producing stage, gradients flow back into
  // the consuming one; scaled by the micro-batch.
  std::int64_t transferBytes(OpKind sendKind, int producerStage, int consumerStage,
                             int microbatch) const;
  const LinkCost& link(int src, int dst) const {
    return uniformLinks_ ? cost_.defaultLink : cost_.link(src, dst);
  }
  // The queue a transfer src -> dst waits in on a finite-bandwidth link: its own pair's, or,
  // with a topology, the one link from src's node to dst's that every such transfer shares.
  std::size_t channel(int src, int dst) const {
    const auto p = static_cast<std::size_t>(plan_.numRanks);
    if (!cost_.crossesNodes(src, dst) || !cost_.topology.sharedLink)
      return static_cast<std::size_t>(src) * p + static_cast<std::size_t>(dst);
    return p * p + static_cast<std::size_t>(cost_.nodeOf(src)) * nodes_ +
           static_cast<std::size_t>(cost_.nodeOf(dst));
  }
  std::size_t channelCount() const {
    const auto p = static_cast<std::size_t>(plan_.numRanks);
    return p * p + nodes_ * nodes_;
  }
  // Latency of the link, rounded to ns.
  std::int64_t latency(int src, int dst) const;
  // True when no link has a bandwidth limit: transfers never queue.
  bool freeLinks() const { return freeLinks_; }
  // Replicated plans (Chimera, BitPipe): the gradient all-reduce before each OPT, as the cpu
  // backend runs it (barrier, exchange with the twins, barrier): every rank waits for the
  // slowest rank's exchange, so each rank's AR lasts that long. 0 for one replica.
  std::int64_t allReduceNs() const { return allReduceNs_; }

 private:
  // Every OpKind value up to FILL (the last compute kind) indexes the duration cache.
  static constexpr int kKindSlots = static_cast<int>(OpKind::FILL) + 1;
  std::int64_t durationSlow(const Action& a, int rank);
  std::int64_t placedEager(const Action& a, int rank, std::int64_t start, std::int64_t d);

  const Plan& plan_;
  const CostModel& cost_;
  std::vector<std::int64_t> durations_;  // [(replica · S + stage) · kinds + kind], -1 = not yet
  std::vector<std::int64_t> boundary_;   // per stage: bytes leaving it for one micro-batch
  bool uniformLinks_ = true;
  bool freeLinks_ = true;
  std::int64_t defaultLatency_ = 0;
  std::int64_t allReduceNs_ = 0;
  std::size_t nodes_ = 0;             // with a topology: how many nodes the plan's ranks span
  std::shared_ptr<EagerSync> eager_;  // Plan::eagerGradientSync of a replicated plan
};

// One rank's gradient exchange with the ranks holding the other replicas of its stages: for
// each such (stage, twin), the stage's parameter bytes over the link to the twin plus latency.
// Every rank exchanges at once, so an exchange over a link between two nodes moves all the
// bytes that every rank sends over that shared link (contention), not only its own.
std::int64_t replicaExchangeNs(const Plan& plan, const CostModel& cost, int rank);
// The all-reduce every rank's OPT waits for: the slowest rank's replicaExchangeNs.
std::int64_t replicaAllReduceNs(const Plan& plan, const CostModel& cost);
// The rank holding another replica of rank's first stage (the AR record's peer), or -1.
int replicaTwinOf(const Plan& plan, int rank);

// The latest time a simulation may reach: the trace loader's bound (trace/RunTrace.h
// kMaxAbsTimeNs, 2^52 ns, about 52 days), past which a written run could not be read back whole.
inline constexpr std::int64_t kMaxSimTimeNs = std::int64_t{1} << 52;

// ns rounded; INT64_MAX (which addNs refuses) for anything at or past it, so a time too large
// for int64 is never converted (UB) or wrapped.
std::int64_t roundNs(double ns);
// out = a + b, false when the sum would pass kMaxSimTimeNs: simulated times are checked, never
// wrapped or clamped (a saturated roundNs input always fails).
inline bool addNs(std::int64_t a, std::int64_t b, std::int64_t& out) {
  return !__builtin_add_overflow(a, b, &out) && out <= kMaxSimTimeNs;
}
// The error a simulation gives when a time does not fit.
std::string timeOverflow(const std::string& where, std::int64_t start, std::int64_t add);
// True when no link of the cost model has a bandwidth limit.
bool allLinksFree(const CostModel& cost);

}  // namespace ps::runtime::sim
