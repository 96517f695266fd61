#pragma once
// What a GNN layer's stash carries (BlockType::Gnn, ActivationStash::setGraph): the graph, the
// micro-batch's chunk of it, and the layer's historical embeddings, every node's input to this
// layer as of the last forward of its chunk (GNNPipe's cache for neighbours in other chunks).

namespace ps::runtime {

struct ChunkGraph;

struct GraphContext {
  const ChunkGraph* graph = nullptr;
  float* history = nullptr;  // [nodes × H], host memory
  int chunk = 0;
};

}  // namespace ps::runtime
