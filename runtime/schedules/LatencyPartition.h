#pragma once
// The dynamic programme TeraPipe and DynaPipe share: cut items 0..n-1 (token cells, sorted
// sequences) into contiguous parts so that a pipeline of `stages` stages running them takes the
// least  sumWeight·Σ t + (stages - 1)·max t,  t = cost(a, b) of the part [a, b). For each
// candidate cap on max t (a part's cost, at least the dearest single item's) it finds the least
// Σ t with every part within the cap; the best cap wins (the first, on ties).
//
// cost(a, b) returns std::optional<double>: nullopt where the part may not be formed. For a fixed
// end b it must not fall as the part grows to the left (a smaller), nor turn feasible again: the
// search stops at the first part over the cap or infeasible.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <vector>

namespace ps::runtime {

// The parts' ends (exclusive, ascending, the last = n); empty when no cutting is feasible.
// maxCaps > 0 tries at most that many caps, spread evenly over the sorted candidates.
template <typename Cost>
std::vector<int> bestLatencyCuts(int n, Cost cost, double sumWeight, int stages,
                                 std::size_t maxCaps = 0) {
  std::vector<double> caps;
  double floor = 0;  // no part costs less than the dearest item alone
  for (int b = 1; b <= n; ++b) {
    if (const auto single = cost(b - 1, b)) floor = std::max(floor, *single);
    for (int a = b - 1; a >= 0; --a) {
      const auto t = cost(a, b);
      if (!t) break;
      caps.push_back(*t);
    }
  }
  std::sort(caps.begin(), caps.end());
  caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
  std::erase_if(caps, [&](double c) { return c < floor; });
  if (maxCaps > 1 && caps.size() > maxCaps) {
    std::vector<double> spread;
    for (std::size_t k = 0; k < maxCaps; ++k)
      spread.push_back(caps[k * (caps.size() - 1) / (maxCaps - 1)]);
    caps = std::move(spread);
  }
  const auto N = static_cast<std::size_t>(n);
  double best = std::numeric_limits<double>::infinity();
  std::vector<int> bestFrom;
  std::vector<double> sum(N + 1);
  std::vector<int> from(N + 1);
  for (double cap : caps) {
    // sum[b]: the least Σ t over cuttings of items [0, b) whose parts all cost at most cap.
    std::fill(sum.begin(), sum.end(), std::numeric_limits<double>::infinity());
    sum[0] = 0;
    for (int b = 1; b <= n; ++b)
      for (int a = b - 1; a >= 0; --a) {
        const auto t = cost(a, b);
        if (!t || *t > cap) break;  // longer parts ending at b cost more still
        const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
        if (sum[ua] + *t < sum[ub]) {
          sum[ub] = sum[ua] + *t;
          from[ub] = a;
        }
      }
    if (!std::isfinite(sum[N])) continue;
    const double latency = sumWeight * sum[N] + (stages - 1) * cap;
    if (latency < best - 1e-12) {
      best = latency;
      bestFrom = from;
    }
  }
  std::vector<int> ends;
  if (bestFrom.empty()) return ends;
  for (int b = n; b > 0; b = bestFrom[static_cast<std::size_t>(b)])
    ends.push_back(b);
  std::reverse(ends.begin(), ends.end());
  return ends;
}

}  // namespace ps::runtime
