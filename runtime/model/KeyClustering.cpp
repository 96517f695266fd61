#include "runtime/model/KeyClustering.h"

#include <algorithm>
#include <unordered_set>

namespace ps::runtime {

std::vector<int> clusterSamplesByKey(const std::vector<std::vector<int>>& keys, int size) {
  const std::size_t n = keys.size();
  std::vector<std::vector<int>> distinct(n);
  int maxKey = -1;
  for (std::size_t s = 0; s < n; ++s) {
    distinct[s] = keys[s];
    std::sort(distinct[s].begin(), distinct[s].end());
    distinct[s].erase(std::unique(distinct[s].begin(), distinct[s].end()), distinct[s].end());
    if (!distinct[s].empty()) maxKey = std::max(maxKey, distinct[s].back());
  }
  // Which samples hold each key: a sample's keys shared with the group are counted as keys join.
  std::vector<std::vector<int>> holders(static_cast<std::size_t>(maxKey + 1));
  for (std::size_t s = 0; s < n; ++s)
    for (int k : distinct[s])
      holders[static_cast<std::size_t>(k)].push_back(static_cast<int>(s));
  std::vector<char> inGroup(holders.size(), 0);
  std::vector<int> shared(n, 0), groupKeys;
  std::vector<bool> taken(n, false);
  std::vector<int> order;
  order.reserve(n);
  const auto join = [&](std::size_t s) {
    taken[s] = true;
    order.push_back(static_cast<int>(s));
    for (int k : distinct[s]) {
      if (inGroup[static_cast<std::size_t>(k)]) continue;
      inGroup[static_cast<std::size_t>(k)] = 1;
      groupKeys.push_back(k);
      for (int other : holders[static_cast<std::size_t>(k)])
        ++shared[static_cast<std::size_t>(other)];
    }
  };
  for (std::size_t first = 0; first < n; ++first) {
    if (taken[first]) continue;
    for (int k : groupKeys)
      inGroup[static_cast<std::size_t>(k)] = 0;
    groupKeys.clear();
    std::fill(shared.begin(), shared.end(), 0);
    join(first);
    for (int slot = 1; slot < size; ++slot) {
      std::size_t best = n;
      for (std::size_t s = first + 1; s < n; ++s)
        if (!taken[s] && (best == n || shared[s] > shared[best])) best = s;
      if (best == n) break;  // fewer samples left than a group: keys.size() not a multiple
      join(best);
    }
  }
  return order;
}

std::vector<int> distinctKeysPerGroup(const std::vector<std::vector<int>>& keys,
                                      const std::vector<int>& order, int size) {
  std::vector<int> counts;
  for (std::size_t at = 0; at < order.size(); at += static_cast<std::size_t>(size)) {
    std::unordered_set<int> group;
    for (std::size_t i = at; i < std::min(order.size(), at + static_cast<std::size_t>(size)); ++i)
      group.insert(keys[static_cast<std::size_t>(order[i])].begin(),
                   keys[static_cast<std::size_t>(order[i])].end());
    counts.push_back(static_cast<int>(group.size()));
  }
  return counts;
}

}  // namespace ps::runtime
