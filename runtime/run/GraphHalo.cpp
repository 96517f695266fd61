#include "runtime/run/GraphHalo.h"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/model/ChunkGraph.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/run/PlanBuilder.h"
#include "trace/Units.h"

namespace ps::runtime {

Result<GraphHalo> graphHalo(const Plan& plan, int nodes) {
  const int m = plan.numMicrobatches();
  const std::string flag = "--graph-nodes " + std::to_string(nodes) + ": ";
  if (m < 1 || nodes < m || nodes % m != 0)
    return Error{flag + "expected a multiple of the " + std::to_string(m) +
                 " micro-batches (each a chunk of the graph's nodes)"};
  const ModelConfig model;  // the cpu backend's graph: its links and seed
  const ChunkGraph graph = makePowerLawGraph(nodes, nodes / m, model.graphLinks, model.seed);
  GraphHalo halo{.nodes = nodes,
                 .edges = static_cast<std::int64_t>(graph.neighbours.size()) / 2,
                 .parts = plan.numReplicas()};
  // A node's part is the replica its chunk's micro-batch runs on.
  const auto partOf = [&](int v) { return plan.replicaOf(graph.chunkOf(v)); };
  std::vector<int> seenBy(static_cast<std::size_t>(nodes), -1);
  std::int64_t total = 0;
  for (int part = 0; part < halo.parts; ++part)
    for (int v = 0; v < nodes; ++v) {
      if (partOf(v) != part) continue;
      for (int i = graph.offsets[v]; i < graph.offsets[v + 1]; ++i) {
        const int u = graph.neighbours[i];
        if (partOf(u) == part || seenBy[u] == part) continue;
        seenBy[u] = part;  // each halo node counts once per part, however many edges reach it
        ++total;
      }
    }
  halo.haloNodesPerPart = (total + halo.parts - 1) / std::max(1, halo.parts);
  return halo;
}

std::int64_t haloBytesPerMicrobatch(const GraphHalo& halo, const Plan& plan, int layers,
                                    std::int64_t bytesPerNode) {
  const int layersPerStage = std::max(1, layers / std::max(1, plan.numStages));
  const int microbatchesPerPart = std::max(1, plan.numMicrobatches() / std::max(1, halo.parts));
  // The all-to-all's bytes are a rank's whole buffer, 1/D of it kept: the halo is the rest.
  const int parts = std::max(2, halo.parts);
  return halo.haloNodesPerPart * bytesPerNode * layersPerStage * parts / (parts - 1) /
         microbatchesPerPart;
}

Status applyGraphNodes(const PlanSpec& spec, Plan& plan, const CostModel& cost,
                       std::vector<std::string>& notes) {
  if (spec.graphNodes == 0) return {};
  const std::string flag = "--graph-nodes " + std::to_string(spec.graphNodes) + ": ";
  if (spec.graphNodes < 0 || spec.graphNodes > (1 << 20))
    return Error{flag + "expected 0..1048576 nodes"};
  if (spec.a2aMb > 0)
    return Error{flag + "the halo exchange's bytes are read off the graph (drop --a2a-mb " +
                 formatNumber(spec.a2aMb) + ")"};
  if (cost.layers.empty()) return Error{flag + "the cost model has no layers"};
  const LayerCost& first = cost.layers.front();
  const int layers = static_cast<int>(cost.layers.size());
  const std::int64_t chunkBytes = first.outputBytes > 0 ? first.outputBytes : first.actBytes;
  if (chunkBytes <= 0) return Error{flag + "a chunk's embeddings have no size (give --act-mb)"};
  const bool graphParallel = plan.numReplicas() >= 2;
  if (graphParallel && spec.dataParallel < 2)
    return Error{flag + "the graph's parts are --dp replicas, not " + plan.schedule +
                 "'s pipeline directions"};
  // One pipeline: the halo graph parallelism over as many devices would exchange, to compare.
  Plan split = plan;
  if (!graphParallel) {
    for (int mb = 0; mb < split.numMicrobatches(); ++mb)
      split.microbatches[mb].replica = mb * plan.numRanks / split.numMicrobatches();
    split.placement.resize(static_cast<std::size_t>(plan.numRanks), plan.placement.front());
  }
  auto halo = graphHalo(split, spec.graphNodes);
  if (!halo) return std::move(halo).takeError();
  plan.graphNodes = spec.graphNodes;
  // --act-mb is one micro-batch's (chunk's) embeddings: N / M nodes.
  const std::int64_t bytesPerNode =
      std::max<std::int64_t>(1, chunkBytes * plan.numMicrobatches() / spec.graphNodes);
  const std::string graph = "graph: " + std::to_string(halo->nodes) + " nodes, " +
                            std::to_string(halo->edges) + " edges, " +
                            std::to_string(plan.numMicrobatches()) + " chunks of " +
                            std::to_string(spec.graphNodes / plan.numMicrobatches()) + " nodes; ";
  if (graphParallel) {
    const bool serial = spec.a2a == "serial";
    if (!spec.a2a.empty() && spec.a2a != "overlap" && !serial)
      return Error{"--a2a " + spec.a2a + ": expected overlap or serial"};
    plan.expertAllToAll = {haloBytesPerMicrobatch(*halo, plan, layers, bytesPerNode), !serial};
    notes.push_back(graph + std::to_string(halo->parts) + " parts, each with a halo of " +
                    std::to_string(halo->haloNodesPerPart) + " nodes exchanged at every layer: " +
                    trace::formatBytes(plan.expertAllToAll.bytes) +
                    " per micro-batch after each F and B");
    return {};
  }
  const std::int64_t perLayer = halo->haloNodesPerPart * halo->parts * bytesPerNode;
  notes.push_back(graph +
                  "the chunks read cross-chunk neighbours from the stages' historical "
                  "embeddings; graph parallelism over " +
                  std::to_string(plan.numRanks) + " devices would exchange " +
                  trace::formatBytes(2 * perLayer * layers) + " of halos a step (" +
                  trace::formatBytes(perLayer) + " a layer, forward and backward)");
  return {};
}

}  // namespace ps::runtime
