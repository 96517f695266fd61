#pragma once
// GNNPipe's comparison read off the graph (--graph-nodes): the power-law graph the cpu backend's
// gnn model trains on (ChunkGraph, the same seed and links), its nodes cut into the plan's
// micro-batches as chunks. Graph parallelism (--dp D, a replica a part of the graph: the chunks
// of its micro-batches) exchanges at every layer, forward and backward, the embeddings of each
// part's halo: the nodes of other parts adjacent to one of its own. The pipeline's chunks read
// such neighbours from the stages' historical embeddings instead and send nothing for them.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cost/CostModel.h"
#include "runtime/plan/Plan.h"
#include "trace/Result.h"

namespace ps::runtime {

struct GraphHalo {
  int nodes = 0;
  std::int64_t edges = 0;             // undirected
  std::int64_t haloNodesPerPart = 0;  // the mean over the parts, rounded up
  int parts = 0;
};

// The halo of the plan's replicas on an N-node graph (N a multiple of the micro-batches).
[[nodiscard]] Result<GraphHalo> graphHalo(const Plan& plan, int nodes);

// What each micro-batch's all-to-all carries after its F and its B in a graph-parallel plan: the
// halo of its part for each of the stage's layers (of `layers` in all), shared over the part's
// micro-batches.
std::int64_t haloBytesPerMicrobatch(const GraphHalo& halo, const Plan& plan, int layers,
                                    std::int64_t bytesPerNode);

struct PlanSpec;

// --graph-nodes N: with --dp D the replicas' all-to-all is the halo exchange read off the graph
// (not with --a2a-mb, which would set it by hand); without, a note says what graph parallelism
// over the pipeline's ranks would exchange against what the pipeline sends.
[[nodiscard]] Status applyGraphNodes(const PlanSpec& spec, Plan& plan, const CostModel& cost,
                                     std::vector<std::string>& notes);

}  // namespace ps::runtime
