#pragma once
// The device flags of a plan applied to its cost model: --rank-speed and --rank-memory-gb
// (HetPipe, PipeEdge) and --topology with the inter-node link (Luo et al.).

#include "runtime/cost/CostModel.h"
#include "runtime/run/PlanBuilder.h"
#include "trace/Result.h"

namespace ps::runtime {

// One value per rank over the cost model's ranks; errors name the flag and the rank.
Status applyRankFlags(const PlanSpec& spec, int numRanks, CostModel& cost);
// --topology NxG (N·G = numRanks) with --inter-gbps / --inter-latency-us; without --topology,
// checks that a cost file's own topology fits the ranks.
Status applyTopology(const PlanSpec& spec, int numRanks, CostModel& cost);

}  // namespace ps::runtime
