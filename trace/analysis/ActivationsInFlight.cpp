#include "trace/analysis/ActivationsInFlight.h"

#include <algorithm>
#include <utility>

namespace ps::trace {

int ActivationsInFlight::at(int rank, std::int64_t t) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks.size()) return 0;
  const auto& steps = ranks[rank];
  const auto it = std::upper_bound(steps.begin(), steps.end(), t,
                                   [](std::int64_t v, const InFlightStep& s) { return v < s.t; });
  return it == steps.begin() ? 0 : std::prev(it)->count;
}

int ActivationsInFlight::seenAt(int rank, std::int64_t t) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks.size()) return 0;
  const auto& steps = ranks[rank];
  const auto it = std::lower_bound(steps.begin(), steps.end(), t,
                                   [](const InFlightStep& s, std::int64_t v) { return s.t < v; });
  if (it != steps.end() && it->t == t) return it->seenAt;
  return it == steps.begin() ? 0 : std::prev(it)->count;
}

ActivationsInFlight activationsInFlight(const RunTrace& run) {
  ActivationsInFlight out;
  out.ranks.resize(run.ranks.size());
  out.peak.assign(run.ranks.size(), 0);
  std::vector<std::pair<std::int64_t, int>> changes;
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    const OpColumns& c = run.ranks[r].lane(Lane::Compute);
    changes.clear();
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c.kind[i] == OpKind::F) changes.emplace_back(c.start[i], +1);
      if (c.kind[i] == OpKind::B || c.kind[i] == OpKind::I) changes.emplace_back(c.end[i], -1);
    }
    if (changes.empty()) continue;
    std::sort(changes.begin(), changes.end());
    auto& steps = out.ranks[r];
    int count = 0;
    // At one time the frees sort first (-1 < +1): `seenAt` is the count after them.
    for (const auto& [t, delta] : changes) {
      if (steps.empty() || steps.back().t != t) steps.push_back({t, count, count});
      count = std::max(0, count + delta);  // a backward whose forward was not recorded
      steps.back().count = count;
      if (delta < 0) steps.back().seenAt = count;
      out.peak[r] = std::max(out.peak[r], count);
    }
  }
  return out;
}

}  // namespace ps::trace
