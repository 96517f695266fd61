#pragma once
// GNNPipe's graph (BlockType::Gnn): a synthetic power-law graph made from a seed (preferential
// attachment: each new node links to `links` earlier ones chosen in proportion to their degree,
// undirected), stored as CSR, its nodes cut into equal chunks of consecutive ids that flow
// through the pipeline as micro-batches (chunk c = nodes [c·size, (c + 1)·size)).

#include <cstdint>
#include <vector>

namespace ps::runtime {

struct ChunkGraph {
  int nodes = 0;
  int chunkSize = 1;
  std::vector<int> offsets;     // nodes + 1 entries
  std::vector<int> neighbours;  // each node's, ascending, no self loops or repeats

  int degree(int v) const { return offsets[v + 1] - offsets[v]; }
  int chunkOf(int v) const { return v / chunkSize; }
  // Edges (each direction counted) whose ends lie in different chunks: what a chunk reads from
  // the others at every layer.
  std::int64_t crossChunkEdges() const;
};

ChunkGraph makePowerLawGraph(int nodes, int chunkSize, int links, std::uint64_t seed);

}  // namespace ps::runtime
