#include "trace/analysis/OrderDoctor.h"

#include <algorithm>
#include <map>
#include <optional>

#include "trace/analysis/StepRetime.h"

namespace ps::trace {
namespace {

// The rank's order with `move` taken out and put just before `before`; nullopt when either is
// not in the step.
std::optional<RankOrder> movedBefore(const StepGraph& g, std::size_t k, const OpRef& move,
                                     const OpRef& before) {
  const auto ops = g.ops(move.rank, k);
  RankOrder out{move.rank, {}};
  bool placed = false, seen = false;
  for (std::size_t i : ops) {
    if (i == move.index) {
      seen = true;
      continue;
    }
    if (i == before.index) {
      out.ops.push_back(move.index);
      placed = true;
    }
    out.ops.push_back(i);
  }
  if (!placed || !seen) return std::nullopt;
  return out;
}

}  // namespace

std::vector<OrderMove> adviseOrderMoves(const StepGraph& graph, const BubbleAttribution& bubbles) {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < bubbles.ranks.size(); ++r)
    if (bubbles.ranks[r][IdleCause::Order] > 0) ranks.push_back(static_cast<int>(r));
  std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) {
    return bubbles.ranks[a][IdleCause::Order] > bubbles.ranks[b][IdleCause::Order];
  });
  if (ranks.size() > kOrderDoctorRanks) ranks.resize(kOrderDoctorRanks);
  std::map<std::size_t, std::optional<std::int64_t>> recorded;  // per step: re-timed as recorded
  std::vector<OrderMove> out;
  for (int r : ranks) {
    std::vector<const IdlePart*> waits;
    for (const IdlePart& p : bubbles.parts[r])
      if (p.cause == IdleCause::Order && p.waitedFor.valid() && p.before.valid())
        waits.push_back(&p);
    std::stable_sort(waits.begin(), waits.end(), [](const IdlePart* a, const IdlePart* b) {
      return a->end - a->start > b->end - b->start;
    });
    std::optional<OrderMove> best;
    for (std::size_t t = 0; t < waits.size() && t < kOrderDoctorTries; ++t) {
      const IdlePart& p = *waits[t];
      const auto k = graph.stepIndex(p.step);
      if (!k) continue;
      auto& base = recorded[*k];
      if (!base) base = retimedStepSpan(graph, *k);
      const auto order = movedBefore(graph, *k, p.waitedFor, p.before);
      const auto moved = order ? retimedStepSpan(graph, *k, &*order) : std::nullopt;
      if (!base || !moved) continue;
      const OrderMove m{
          r, p.step, p.waitedFor, p.before, bubbles.ranks[r][IdleCause::Order], *base - *moved};
      if (!best || m.gainNs > best->gainNs) best = m;
    }
    if (best) out.push_back(*best);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const OrderMove& a, const OrderMove& b) { return a.gainNs > b.gainNs; });
  return out;
}

}  // namespace ps::trace
