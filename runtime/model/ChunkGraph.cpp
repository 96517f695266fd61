#include "runtime/model/ChunkGraph.h"

#include <algorithm>

#include "runtime/model/Rng.h"

namespace ps::runtime {

std::int64_t ChunkGraph::crossChunkEdges() const {
  std::int64_t cross = 0;
  for (int v = 0; v < nodes; ++v)
    for (int i = offsets[v]; i < offsets[v + 1]; ++i)
      cross += chunkOf(neighbours[i]) != chunkOf(v) ? 1 : 0;
  return cross;
}

ChunkGraph makePowerLawGraph(int nodes, int chunkSize, int links, std::uint64_t seed) {
  // Each edge joins a new node v to an earlier one: v's own list (at most `links` long while v is
  // added) is the only one that can already hold the pair, so a short scan keeps it simple.
  std::vector<std::vector<int>> adjacent(static_cast<std::size_t>(std::max(nodes, 0)));
  std::vector<int> ends;  // every edge's two ends: a node appears as often as its degree
  Rng rng(Rng::key(seed, 0x9a9b0000ULL));
  for (int v = 1; v < nodes; ++v) {
    const int want = std::min(links, v);
    auto& own = adjacent[static_cast<std::size_t>(v)];
    for (int tries = 0; static_cast<int>(own.size()) < want && tries < 8 * want; ++tries) {
      // Half the picks by degree (the power law), half uniform (every node reachable).
      const bool byDegree = !ends.empty() && rng.next() % 2 == 0;
      const int u = byDegree ? ends[rng.next() % ends.size()] : static_cast<int>(rng.next() % v);
      if (u == v || std::find(own.begin(), own.end(), u) != own.end()) continue;
      own.push_back(u);
      adjacent[static_cast<std::size_t>(u)].push_back(v);
      ends.push_back(u);
      ends.push_back(v);
    }
  }
  ChunkGraph g;
  g.nodes = nodes;
  g.chunkSize = std::max(1, chunkSize);
  g.offsets.assign(static_cast<std::size_t>(std::max(nodes, 0)) + 1, 0);
  g.neighbours.reserve(ends.size());
  for (int v = 0; v < nodes; ++v) {
    auto& list = adjacent[static_cast<std::size_t>(v)];
    std::sort(list.begin(), list.end());  // ascending, as the CSR promises
    g.offsets[v + 1] = g.offsets[v] + static_cast<int>(list.size());
    g.neighbours.insert(g.neighbours.end(), list.begin(), list.end());
  }
  return g;
}

}  // namespace ps::runtime
