#include "trace/analysis/EndOrder.h"

#include <algorithm>
#include <tuple>

namespace ps::trace {

EndOrder::EndOrder(const RunTrace& run, Lane lane) : lane_(lane), ranks_(run.ranks.size()) {
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const OpColumns& c = run.ranks[r].lane(lane);
    auto& entries = ranks_[r];
    entries.reserve(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
      entries.push_back({c.step[i], c.end[i], c.start[i], i});
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.step, a.end, a.index) < std::tie(b.step, b.end, b.index);
    });
    empty_ = empty_ && entries.empty();
  }
}

std::optional<OpRef> EndOrder::lastEndedBy(int rank, std::int32_t step, std::int64_t t) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks_.size()) return std::nullopt;
  const auto& entries = ranks_[static_cast<std::size_t>(rank)];
  // The first entry past (step, t): the one before it, when of the same step, ended last by t.
  const auto it =
      std::upper_bound(entries.begin(), entries.end(), std::pair{step, t},
                       [](const std::pair<std::int32_t, std::int64_t>& key, const Entry& e) {
                         return key < std::pair{e.step, e.end};
                       });
  for (auto e = it; e != entries.begin() && std::prev(e)->step == step; --e)
    if (std::prev(e)->start < t) return OpRef{rank, lane_, std::prev(e)->index};
  return std::nullopt;
}

}  // namespace ps::trace
