#include "trace/analysis/OrderWaits.h"

#include <algorithm>
#include <limits>

namespace ps::trace {

ReadyLater::ReadyLater(const StepGraph& graph)
    : graph_(graph), inFlight_(activationsInFlight(graph.run())) {}

void ReadyLater::rankStep(int rank, std::size_t k) {
  rank_ = rank;
  k_ = k;
  const auto ops = graph_.ops(rank, k);
  constexpr auto kNever = std::numeric_limits<std::int64_t>::max();
  ready_.assign(ops.size(), kNever);
  const OpColumns& c = graph_.run().ranks[rank].lane(Lane::Compute);
  for (std::size_t pos = 0; pos < ops.size(); ++pos) {
    const std::size_t i = ops[pos];
    if (!isPipelineCompute(c.kind[i])) continue;  // OPT and the rest: never moved
    if (const auto wait = graph_.latestInput({rank, Lane::Compute, i}))
      ready_[pos] = wait->readyNs;
    else if (c.kind[i] == OpKind::F && c.stage[i] == 0)
      ready_[pos] = std::numeric_limits<std::int64_t>::min();  // the first stage's input is there
    // Any other op without a recorded input (an import that matched no transfer): unknown, so
    // never called ready.
  }
}

std::optional<ReadyLater::Ready> ReadyLater::during(std::int64_t from, std::int64_t to,
                                                    std::size_t pos) const {
  const auto ops = graph_.ops(rank_, k_);
  const OpColumns& c = graph_.run().ranks[rank_].lane(Lane::Compute);
  const bool belowPeak = static_cast<std::size_t>(rank_) < inFlight_.peak.size() &&
                         inFlight_.at(rank_, from) < inFlight_.peak[rank_];
  std::optional<Ready> best;
  const std::size_t last = std::min(ops.size(), pos + 1 + kLookahead);
  for (std::size_t q = pos + 1; q < last; ++q) {
    const OpKind kind = c.kind[ops[q]];
    if (!isPipelineCompute(kind)) continue;
    if ((kind == OpKind::F || kind == OpKind::R) && !belowPeak) continue;
    const std::int64_t at = std::max(from, ready_[q]);
    if (at >= to || (best && at >= best->at)) continue;
    best = Ready{at, {rank_, Lane::Compute, ops[q]}};
  }
  return best;
}

}  // namespace ps::trace
