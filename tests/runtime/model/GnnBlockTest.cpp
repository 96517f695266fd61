// The graph block (GNNPipe): its power-law graph, and its input and weight gradients against
// finite differences for a chunk in the middle of the graph, whose neighbours are partly in the
// chunk (gradient flows to them) and partly in other chunks (read from the history: none).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runtime/model/ChunkGraph.h"
#include "runtime/model/Layer.h"
#include "runtime/model/Rng.h"
#include "tests/kernels/GradCheck.h"
#include "tests/runtime/model/LayerGradCheck.h"

namespace ps::runtime {
namespace {

TEST(ChunkGraph, IsUndirectedWithHubsAndEdgesAcrossChunks) {
  const ChunkGraph g = makePowerLawGraph(200, 20, 3, 11);
  ASSERT_EQ(g.offsets.size(), 201u);
  int hub = 0;
  for (int v = 0; v < g.nodes; ++v) {
    hub = std::max(hub, g.degree(v));
    for (int e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const int u = g.neighbours[e];
      ASSERT_NE(u, v);
      const auto* begin = g.neighbours.data() + g.offsets[u];
      EXPECT_TRUE(std::binary_search(begin, g.neighbours.data() + g.offsets[u + 1], v));
    }
  }
  // Preferential attachment: some node far above the mean degree (about 6).
  EXPECT_GT(hub, 15);
  EXPECT_GT(g.crossChunkEdges(), 0);
  EXPECT_LT(g.crossChunkEdges(), static_cast<std::int64_t>(g.neighbours.size()));
  // The same seed, the same graph.
  EXPECT_EQ(makePowerLawGraph(200, 20, 3, 11).neighbours, g.neighbours);
}

struct GnnCase {
  GnnCase() : graph(makePowerLawGraph(24, 8, 3, 5)) {
    config.block = BlockType::Gnn;
    config.layers = 2;
    config.hidden = 4;
    config.seq = 4;
    config.microbatchSize = 2;
    config.ffnMultiplier = 2;
    layer = makeLayer(config);
    n = static_cast<std::size_t>(config.activationElems());
    x = test::randomVector(n, 81);
    dOut = test::randomVector(n, 82);
    history = test::randomVector(static_cast<std::size_t>(graph.nodes) * config.hidden, 83);
    params.resize(layer->paramCount());
    layer->initParams(params.data(), 7);
  }
  ActivationStash stash() {
    ActivationStash st(nullptr);
    historyCopy = history;  // F writes the chunk's inputs into it
    st.setGraph({&graph, historyCopy.data(), 1});
    return st;
  }
  double loss() {
    ActivationStash st = stash();
    std::vector<float> out(n);
    layer->forward(params.data(), x.data(), out.data(), st);
    return test::weightedSum(dOut, out.data());
  }
  std::vector<float> backward(std::vector<float>& grads) {
    ActivationStash st = stash();
    std::vector<float> out(n), dIn(n);
    layer->forward(params.data(), x.data(), out.data(), st);
    layer->backwardInput(params.data(), dOut.data(), st, dIn.data());
    grads.assign(params.size(), 0.0f);
    layer->backwardWeight(st, grads.data());
    return dIn;
  }
  ModelConfig config;
  ChunkGraph graph;
  std::unique_ptr<Layer> layer;
  std::size_t n = 0;
  std::vector<float> x, dOut, history, historyCopy, params;
};

TEST(GnnBlock, GradientsMatchFiniteDifferencesWithNeighboursInAndOutOfTheChunk) {
  GnnCase c;
  // Chunk 1 (nodes 8..15) has edges inside and to the other chunks.
  int inside = 0, outside = 0;
  for (int v = 8; v < 16; ++v)
    for (int e = c.graph.offsets[v]; e < c.graph.offsets[v + 1]; ++e)
      (c.graph.chunkOf(c.graph.neighbours[e]) == 1 ? inside : outside)++;
  ASSERT_GT(inside, 0);
  ASSERT_GT(outside, 0);
  std::vector<float> grads;
  const auto dIn = c.backward(grads);
  const auto r = test::checkGradient(
      c.x, dIn, [&] { return c.loss(); }, 1e-2f, test::scaleFloor(dIn));
  EXPECT_LT(r.maxError, test::kGradTolerance) << test::describe(r);
  test::expectWeightGradients(c.params, grads, c.layer->layout(), [&] { return c.loss(); });
  // The history now holds the chunk's inputs.
  ActivationStash st = c.stash();
  std::vector<float> out(c.n);
  c.layer->forward(c.params.data(), c.x.data(), out.data(), st);
  EXPECT_TRUE(std::equal(c.x.begin(), c.x.end(), c.historyCopy.begin() + 8 * c.config.hidden));
  c.layer->backwardInput(c.params.data(), c.dOut.data(), st, out.data());
  c.layer->backwardWeight(st, std::vector<float>(c.params.size()).data());
}

}  // namespace
}  // namespace ps::runtime
