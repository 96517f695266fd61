#include "runtime/run/DeviceFlags.h"

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/run/DeviceMapping.h"

namespace ps::runtime {

// --rank-speed and --rank-memory-gb over the cost model's ranks: one value per rank.
Status applyRankFlags(const PlanSpec& spec, int numRanks, CostModel& cost) {
  auto check = [numRanks](const std::vector<double>& values, const std::string& flag, double max,
                          const std::string& unit) -> Status {
    if (values.empty()) return {};
    if (static_cast<int>(values.size()) != numRanks)
      return Error{flag + ": " + std::to_string(values.size()) + " value(s) for " +
                   std::to_string(numRanks) + " ranks (give one per rank, e.g. 1,1,2,1)"};
    for (std::size_t r = 0; r < values.size(); ++r)
      if (!(values[r] > 0) || !(values[r] <= max))
        return Error{flag + ": rank " + std::to_string(r) + "'s " + formatNumber(values[r]) +
                     " is outside (0, " + formatNumber(max) + "]" + unit};
    return {};
  };
  PS_TRY(check(spec.rankSpeed, "--rank-speed", 1e6, ""));
  PS_TRY(check(spec.rankMemoryGb, "--rank-memory-gb", 1e9, " GiB"));
  if (spec.rankSpeed.empty() && spec.rankMemoryGb.empty()) return {};
  if (static_cast<int>(cost.ranks.size()) < numRanks) cost.ranks.resize(numRanks);
  for (int r = 0; r < numRanks; ++r) {
    if (!spec.rankSpeed.empty()) cost.ranks[r].speed = spec.rankSpeed[r];
    if (!spec.rankMemoryGb.empty())
      cost.ranks[r].memoryCapacityBytes =
          static_cast<std::int64_t>(std::llround(spec.rankMemoryGb[r] * 1024.0 * 1024.0 * 1024.0));
  }
  return {};
}

// --topology NxG with --inter-gbps / --inter-latency-us (or a cost file's topology).
Status applyTopology(const PlanSpec& spec, int numRanks, CostModel& cost) {
  if (spec.topology.empty()) {
    if (spec.interGbps || spec.interLatencyUs != 0 || !spec.interLinks.empty())
      return Error{
          "--inter-gbps/--inter-latency-us/--inter-links: give the nodes with "
          "--topology NxG too"};
    if (cost.topology.gpusPerNode > numRanks)
      return Error{"the cost model's topology has " + std::to_string(cost.topology.gpusPerNode) +
                   " devices per node for " + std::to_string(numRanks) + " ranks"};
    const auto sizes = cost.topology.nodeSizes;
    if (!sizes.empty() && std::accumulate(sizes.begin(), sizes.end(), 0L) != numRanks)
      return Error{"the cost model's topology has nodes of " +
                   std::to_string(std::accumulate(sizes.begin(), sizes.end(), 0L)) +
                   " devices in all for " + std::to_string(numRanks) + " ranks"};
    return {};
  }
  auto shape = parseTopology(spec.topology);
  if (!shape) return std::move(shape).takeError();
  if (shape->devices() != numRanks)
    return Error{"--topology " + spec.topology + ": " + std::to_string(shape->devices()) +
                 " devices for " + std::to_string(numRanks) +
                 " ranks (the nodes' devices must add up to --stages times --dp)"};
  if (!cost.topology.present()) cost.topology.interNode = cost.defaultLink;
  cost.topology.gpusPerNode = shape->gpusPerNode;
  cost.topology.nodeSizes = shape->sizes;
  if (spec.interGbps) {
    if (!std::isfinite(*spec.interGbps) || *spec.interGbps < 0)
      return Error{"--inter-gbps " + formatNumber(*spec.interGbps) + ": expected 0 or more"};
    cost.topology.interNode.bytesPerNs = *spec.interGbps / 8.0;
  }
  if (!std::isfinite(spec.interLatencyUs) || spec.interLatencyUs < 0)
    return Error{"--inter-latency-us " + formatNumber(spec.interLatencyUs) +
                 ": expected 0 or more"};
  if (spec.interLatencyUs > 0) cost.topology.interNode.latencyNs = spec.interLatencyUs * 1e3;
  if (!spec.interLinks.empty() && spec.interLinks != "node" && spec.interLinks != "device")
    return Error{"--inter-links " + spec.interLinks + ": expected node or device"};
  if (!spec.interLinks.empty()) cost.topology.sharedLink = spec.interLinks != "device";
  return checkCostRanges(cost, "--topology " + spec.topology);
}

}  // namespace ps::runtime
