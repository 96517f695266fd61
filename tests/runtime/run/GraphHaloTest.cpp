// GNNPipe's comparison read off the graph (issue 35 item 1, --graph-nodes): graph parallelism's
// halo exchange is counted on the cpu backend's power-law graph, each part's halo node once
// however many of its edges reach it; the gnnpipe preset sends fewer bytes and ends its epoch
// sooner than its graph-parallel baseline on the same graph.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "runtime/model/ChunkGraph.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/run/GraphHalo.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/PresetHeadline.h"
#include "runtime/run/Presets.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

PlanSpec graphParallel(int nodes, int parts, int microbatches) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 1;
  spec.microbatches = microbatches;
  spec.dataParallel = parts;
  spec.layers = 6;
  spec.uniform.fwdUs = 100;
  spec.uniform.actMb = 1;
  spec.uniform.linkGbps = 100;
  spec.graphNodes = nodes;
  return spec;
}

// Each part's halo counted another way: a set per part of the outside nodes its edges reach.
double meanHaloBySets(const Plan& plan, int nodes) {
  const ModelConfig model;
  const ChunkGraph g =
      makePowerLawGraph(nodes, nodes / plan.numMicrobatches(), model.graphLinks, model.seed);
  std::vector<std::set<int>> halo(static_cast<std::size_t>(plan.numReplicas()));
  for (int v = 0; v < nodes; ++v)
    for (int i = g.offsets[v]; i < g.offsets[v + 1]; ++i) {
      const int u = g.neighbours[i];
      const int pv = plan.replicaOf(g.chunkOf(v)), pu = plan.replicaOf(g.chunkOf(u));
      if (pu != pv) halo[pv].insert(u);
    }
  double total = 0;
  for (const auto& h : halo)
    total += static_cast<double>(h.size());
  return total / static_cast<double>(halo.size());
}

TEST(GraphHalo, CountsEachPartsHaloNodeOnce) {
  for (const auto& [nodes, parts, microbatches] :
       {std::tuple{512, 2, 2}, std::tuple{4096, 4, 4}, std::tuple{4096, 4, 8}}) {
    SCOPED_TRACE(std::to_string(nodes) + " nodes, " + std::to_string(parts) + " parts, m " +
                 std::to_string(microbatches));
    auto built = buildPlan(graphParallel(nodes, parts, microbatches));
    ASSERT_TRUE(built.ok()) << built.error();
    auto halo = graphHalo(built->plan, nodes);
    ASSERT_TRUE(halo.ok()) << halo.error();
    const double bySets = meanHaloBySets(built->plan, nodes);
    EXPECT_NEAR(static_cast<double>(halo->haloNodesPerPart), bySets, 1.0);
    // A halo holds fewer nodes than its edges to other parts (hubs are reached many times) but
    // more than none: a power-law graph's parts are well connected.
    EXPECT_GT(bySets, 0.2 * nodes * (parts - 1) / parts);
    EXPECT_LT(bySets, 1.0 * nodes * (parts - 1) / parts);
    // The all-to-all: every layer's halo, 1/D of the buffer kept, over the part's micro-batches.
    const std::int64_t bytesPerNode = std::int64_t{1} * 1024 * 1024 * microbatches / nodes;
    const double expected = static_cast<double>(halo->haloNodesPerPart) * bytesPerNode * 6 * parts /
                            (parts - 1) / (microbatches / parts);
    EXPECT_NEAR(static_cast<double>(built->plan.expertAllToAll.bytes), expected, 1.0);
    EXPECT_THAT(built->notes, ::testing::Contains(HasSubstr("exchanged at every layer")));
  }
}

TEST(GraphHalo, TheHaloGrowsWithTheParts) {
  auto two = buildPlan(graphParallel(4096, 2, 4)), four = buildPlan(graphParallel(4096, 4, 4));
  ASSERT_TRUE(two.ok() && four.ok());
  EXPECT_LT(graphHalo(two->plan, 4096)->haloNodesPerPart * 2,
            graphHalo(four->plan, 4096)->haloNodesPerPart * 4);
}

TEST(GraphHalo, BadInputIsNamed) {
  auto uneven = buildPlan(graphParallel(1001, 4, 8));
  ASSERT_FALSE(uneven.ok());
  EXPECT_THAT(uneven.error(), HasSubstr("--graph-nodes 1001: expected a multiple of the 8"));
  PlanSpec byHand = graphParallel(4096, 4, 4);
  byHand.a2aMb = 16;
  auto both = buildPlan(byHand);
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(both.error(), HasSubstr("drop --a2a-mb 16"));
  PlanSpec directions = graphParallel(4096, 1, 8);
  directions.schedule = "chimera";
  directions.stages = 4;
  auto bidirectional = buildPlan(directions);
  ASSERT_FALSE(bidirectional.ok());
  EXPECT_THAT(bidirectional.error(), HasSubstr("not chimera's pipeline directions"));
  PlanSpec pipeline = graphParallel(4096, 1, 8);
  pipeline.stages = 3;
  auto one = buildPlan(pipeline);
  ASSERT_TRUE(one.ok()) << one.error();
  EXPECT_EQ(one->plan.expertAllToAll.bytes, 0);
  EXPECT_THAT(one->notes, ::testing::Contains(HasSubstr("graph parallelism over 3 devices")));
}

// The headline on the same graph: fewer bytes over the links and a shorter epoch (a step is one
// pass over every chunk), as the presets say and on two other chunk counts.
TEST(GraphHalo, ThePipelineSendsLessAndEndsItsEpochSooner) {
  auto pipelined = findPreset("gnnpipe"), baseline = findPreset("gnnpipe-baseline");
  ASSERT_TRUE(pipelined.ok() && baseline.ok());
  for (int scale : {1, 2, 4}) {
    SCOPED_TRACE("micro-batches x" + std::to_string(scale));
    PlanSpec a = pipelined->spec, b = baseline->spec;
    a.microbatches = *a.microbatches * scale;
    b.microbatches = *b.microbatches * scale;
    const auto ra = trace::analyzeRun(test::simulateThroughTraceFile(a));
    const auto rb = trace::analyzeRun(test::simulateThroughTraceFile(b));
    EXPECT_LT(*headlineMetric(ra, "link_bytes") * 5, *headlineMetric(rb, "link_bytes"));
    EXPECT_LT(*ra.step_time_ns, *rb.step_time_ns);
  }
}

}  // namespace
}  // namespace ps::runtime
