#pragma once
// The search behind --mapping auto (Luo et al.): which device runs which pipeline rank, by
// simulated step time. Devices in one node are alike to the topology, so the search first
// tries every way of sharing the ranks out over the nodes (small clusters), then improves the
// best mapping by swapping pairs of devices while a swap shortens the step (any size, and
// devices of unequal speed).

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "trace/Result.h"

namespace ps::runtime {

struct MappingSearchResult {
  std::vector<int> deviceOf;  // rank r runs on device deviceOf[r]
  std::int64_t stepNs = 0;
  std::int64_t rankOrderNs = 0;  // the naive mapping's step: rank r on device r
  int evaluated = 0;
};

// stepTime(deviceOf): the simulated step under that mapping, or an error for a mapping that
// cannot run (memory over a cap). The rank order's error is the search's; never returns a
// mapping slower than the rank order. gpusPerNode 0 = no topology. `cancel` (Ctrl-C, the app's
// Stop) is polled before every evaluation: once set, the search stops with the error
// "cancelled after N mappings" (a large search runs for minutes; issue 30, item 12).
using MappingCost = std::function<Result<std::int64_t>(const std::vector<int>&)>;
Result<MappingSearchResult> searchDeviceMapping(int ranks, int gpusPerNode,
                                                const MappingCost& stepTime,
                                                const std::atomic<bool>* cancel = nullptr);
// The same over nodes of the sizes given, in device order (Topology::sizes; empty = none).
Result<MappingSearchResult> searchDeviceMapping(int ranks, const std::vector<int>& nodeSizes,
                                                const MappingCost& stepTime,
                                                const std::atomic<bool>* cancel = nullptr);

// The simulations a search of `ranks` ranks makes when no swap helps (each node assignment,
// then one round of pair swaps): a lower bound of what searchDeviceMapping costs, read off the
// search itself with a constant step time (explore sums it over its candidates).
int mappingSearchEvaluations(int ranks, int gpusPerNode);
int mappingSearchEvaluations(int ranks, const std::vector<int>& nodeSizes);

}  // namespace ps::runtime
