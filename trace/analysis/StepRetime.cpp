#include "trace/analysis/StepRetime.h"

#include <algorithm>
#include <limits>

namespace ps::trace {
namespace {

constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
constexpr std::size_t kNoPos = std::numeric_limits<std::size_t>::max();

class Retimer {
 public:
  Retimer(const StepGraph& g, std::size_t k, const RankOrder* reordered) : g_(g), k_(k) {
    const std::size_t ranks = g.run().ranks.size();
    order_.resize(ranks);
    pos_.resize(ranks);
    end_.resize(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      const auto ops = g.ops(static_cast<int>(r), k);
      order_[r].assign(ops.begin(), ops.end());
      if (reordered && reordered->rank == static_cast<int>(r)) order_[r] = reordered->ops;
      const OpColumns& c = g.run().ranks[r].lane(Lane::Compute);
      pos_[r].assign(c.size(), kNoPos);
      end_[r].assign(c.size(), kUnset);
      for (std::size_t p = 0; p < order_[r].size(); ++p)
        pos_[r][order_[r][p]] = p;
    }
  }

  std::optional<std::int64_t> span() {
    const std::int64_t stepStart = g_.extent(k_).start;
    const std::size_t ranks = order_.size();
    std::vector<std::size_t> next(ranks, 0);
    std::vector<std::int64_t> free(ranks), lastStart(ranks, kUnset);
    for (std::size_t r = 0; r < ranks; ++r)
      free[r] = std::max(stepStart, previousStepEnd(static_cast<int>(r)));
    std::int64_t latest = stepStart;
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t r = 0; r < ranks; ++r)
        while (next[r] < order_[r].size()) {
          const std::size_t i = order_[r][next[r]];
          const OpRef op{static_cast<int>(r), Lane::Compute, i};
          const auto release = releaseOf(op);
          if (!release) break;  // an input not re-timed yet
          const OpColumns& c = g_.run().ranks[r].lane(Lane::Compute);
          // An overlapped unit's second half starts with the first.
          const bool unit = next[r] > 0 && c.start[i] == c.start[order_[r][next[r] - 1]];
          const std::int64_t start = std::max(*release, unit ? lastStart[r] : free[r]);
          end_[r][i] = start + (c.end[i] - c.start[i]);
          free[r] = std::max(free[r], end_[r][i]);
          lastStart[r] = start;
          latest = std::max(latest, end_[r][i]);
          ++next[r];
          progress = true;
        }
    }
    for (std::size_t r = 0; r < ranks; ++r)
      if (next[r] < order_[r].size()) return std::nullopt;  // waits on itself: not runnable
    return latest - stepStart;
  }

 private:
  std::int64_t previousStepEnd(int rank) const {
    if (k_ == 0) return kUnset;
    const OpColumns& c = g_.run().ranks[rank].lane(Lane::Compute);
    std::int64_t end = kUnset;
    for (std::size_t i : g_.ops(rank, k_ - 1))
      end = std::max(end, c.end[i]);
    return end;
  }

  // The re-timed end of a compute op of this step, or its recorded end for any other op;
  // nullopt while it waits to be re-timed.
  std::optional<std::int64_t> endOf(const OpRef& op) const {
    if (op.lane != Lane::Compute || pos_[op.rank][op.index] == kNoPos)
      return g_.run().ranks[op.rank].lane(op.lane).end[op.index];
    const std::int64_t e = end_[op.rank][op.index];
    return e == kUnset ? std::nullopt : std::optional<std::int64_t>(e);
  }

  // When the op's inputs are there, re-timed; nullopt while one is not re-timed yet.
  std::optional<std::int64_t> releaseOf(const OpRef& op) const {
    const OpColumns& c = g_.run().ranks[op.rank].lane(Lane::Compute);
    if (c.kind[op.index] == OpKind::OPT) return optimizerRelease(op);
    std::int64_t release = kUnset;
    for (const StepGraph::Wait& w : g_.inputWaits(op)) {
      if (!w.producer.valid()) {
        release = std::max(release, w.readyNs);
        continue;
      }
      const auto end = endOf(w.producer);
      if (!end) return std::nullopt;
      release = std::max(release, *end + std::max<std::int64_t>(0, w.readyNs - w.producerEndNs));
    }
    return release;
  }

  std::optional<std::int64_t> optimizerRelease(const OpRef& op) const {
    const auto done = g_.gradientsDone(op.rank, k_);
    if (!done) return kUnset;
    // The delay recorded after the gradients and the rank's previous op (the all-reduce's).
    const OpColumns& c = g_.run().ranks[op.rank].lane(Lane::Compute);
    std::int64_t held = done->readyNs;
    if (const auto before = g_.previousOnRank(op)) held = std::max(held, c.end[before->index]);
    const std::int64_t delay = std::max<std::int64_t>(0, c.start[op.index] - held);
    const bool own = g_.relations().optimizerPerRank();
    std::int64_t release = kUnset;
    for (std::size_t r = 0; r < order_.size(); ++r) {
      if (own && static_cast<int>(r) != op.rank) continue;
      const OpColumns& rc = g_.run().ranks[r].lane(Lane::Compute);
      for (std::size_t i : order_[r]) {
        if (rc.kind[i] != OpKind::B && rc.kind[i] != OpKind::W) continue;
        const std::int64_t e = end_[r][i];
        if (e == kUnset) return std::nullopt;
        release = std::max(release, e);
      }
    }
    return release == kUnset ? kUnset : release + delay;
  }

  const StepGraph& g_;
  std::size_t k_;
  std::vector<std::vector<std::size_t>> order_;
  std::vector<std::vector<std::size_t>> pos_;   // per rank, per compute op: its position
  std::vector<std::vector<std::int64_t>> end_;  // re-timed ends (kUnset: not yet)
};

}  // namespace

std::optional<std::int64_t> retimedStepSpan(const StepGraph& graph, std::size_t k,
                                            const RankOrder* reordered) {
  if (k >= graph.steps().size()) return std::nullopt;
  return Retimer(graph, k, reordered).span();
}

}  // namespace ps::trace
