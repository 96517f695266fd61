#include "trace/analysis/CommWaits.h"

#include <algorithm>
#include <limits>

namespace ps::trace {

CommWaits::CommWaits(const RunTrace& run) : ends_(run.ranks.size()), busy_(run.ranks.size()) {
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const OpColumns& c = run.ranks[r].lane(Lane::Collective);
    auto& ends = ends_[r];
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c.kind[i] != OpKind::A2A && c.kind[i] != OpKind::AR) continue;
      if (c.kind[i] == OpKind::A2A)
        ends.push_back({{c.step[i], c.stage[i], c.microbatch[i]}, c.end[i]});
      spans.emplace_back(c.start[i], c.end[i]);
    }
    empty_ = empty_ && spans.empty();
    std::sort(ends.begin(), ends.end());
    std::sort(spans.begin(), spans.end());
    auto& busy = busy_[r];
    for (const auto& s : spans) {
      if (!busy.empty() && s.first <= busy.back().second)
        busy.back().second = std::max(busy.back().second, s.second);
      else
        busy.push_back(s);
    }
  }
}

std::int64_t CommWaits::endBefore(const RunTrace& run, const OpRef& op, std::int64_t limit) const {
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  if (!op.valid() || op.lane != Lane::Compute || static_cast<std::size_t>(op.rank) >= ends_.size())
    return kMin;
  const OpColumns& c = run.ranks[op.rank].lane(Lane::Compute);
  const Key key{c.step[op.index], c.stage[op.index], c.microbatch[op.index]};
  const auto& ends = ends_[op.rank];
  auto it = std::lower_bound(ends.begin(), ends.end(), std::pair{key, kMin});
  std::int64_t best = kMin;
  for (; it != ends.end() && it->first == key; ++it)
    if (it->second <= limit) best = std::max(best, it->second);
  return best;
}

void CommWaits::split(int rank, std::int64_t a, std::int64_t b,
                      const std::function<void(std::int64_t, std::int64_t, bool)>& visit) const {
  const auto& busy = busy_[static_cast<std::size_t>(rank)];
  // The first busy span that ends after a.
  auto it = std::upper_bound(busy.begin(), busy.end(), a,
                             [](std::int64_t t, const auto& s) { return t < s.second; });
  std::int64_t cursor = a;
  for (; it != busy.end() && it->first < b && cursor < b; ++it) {
    const std::int64_t s = std::max(cursor, it->first), e = std::min(b, it->second);
    if (s > cursor) visit(cursor, s, false);
    if (e > s) visit(s, e, true);
    cursor = std::max(cursor, e);
  }
  if (cursor < b) visit(cursor, b, false);
}

}  // namespace ps::trace
