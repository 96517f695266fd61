#pragma once
// Plan transforms for where a pipeline runs: DAPPLE's data-parallel replicas of a whole pipeline
// and the mapping of pipeline ranks onto devices (Luo et al.'s topology-aware placement).

#include <string>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

// `onePipeline` (one synchronous step, one replica) replicated `groups` times: replica k runs
// on ranks k·P .. k·P + P − 1 with micro-batches k·M .. k·M + M − 1, each replica the same
// program. Errors (starting "--dp") name what cannot be replicated (bidirectional plans that
// already carry replicas, asynchronous weight versions).
Result<Plan> replicatePipeline(const Plan& onePipeline, int groups);

// The plan with rank r's program, stages and peers moved to device deviceOf[r] (a permutation
// of 0..numRanks−1).
Plan placeOnDevices(const Plan& plan, const std::vector<int>& deviceOf);

// "0,4,1,5,...": a permutation of 0..ranks−1; errors name --mapping and the bad value.
Result<std::vector<int>> parseDeviceOrder(const std::string& text, int ranks);
std::string deviceOrderText(const std::vector<int>& deviceOf);
bool isRankOrder(const std::vector<int>& deviceOf);

// "NxG" (N nodes of G devices), or "a+b+c" (nodes of a, b and c devices, in rank order); errors
// name --topology.
struct NodeShape {
  int nodes = 0, gpusPerNode = 0;  // NxG
  std::vector<int> sizes;          // a+b+c (then gpusPerNode is 0)
  long devices() const;
  // The node sizes either way.
  std::vector<int> nodeSizes() const;
};
Result<NodeShape> parseTopology(const std::string& text);

}  // namespace ps::runtime
