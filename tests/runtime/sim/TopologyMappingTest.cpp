// Luo et al.'s topology-aware mapping and DAPPLE's replicated pipelines: nodes of devices with a
// shared inter-node link in the cost model, contention on it in the simulator (transfers and
// the replicas' gradient all-reduce), the mapping of ranks onto devices and its search.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "runtime/cost/CostJson.h"
#include "runtime/run/DeviceMapping.h"
#include "runtime/run/Explore.h"
#include "runtime/run/MappingSearch.h"
#include "runtime/run/Presets.h"
#include "runtime/sim/OpCosts.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

constexpr double kMappingMiB = 1024.0 * 1024.0;

// 1F1B, P stages x D replicas of one layer each, 8 Gb/s (1 byte/ns) inside a node and
// 0.8 Gb/s (0.1 byte/ns) between nodes.
PlanSpec cluster(int stages, int dp, const std::string& topology) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = stages;
  spec.dataParallel = dp;
  spec.microbatches = 2 * dp;
  spec.uniform.fwdUs = 100;
  spec.uniform.bwdUs = 200;
  spec.uniform.wgradUs = 100;
  spec.uniform.actMb = 1.0 / 16;
  spec.uniform.paramMb = 1;
  spec.uniform.linkGbps = 8;
  spec.topology = topology;
  if (!topology.empty()) spec.interGbps = 0.8;
  return spec;
}

BuiltPlan built(const PlanSpec& spec) {
  auto b = buildPlan(spec);
  EXPECT_TRUE(b.ok()) << b.error();
  return b.ok() ? std::move(*b) : BuiltPlan{};
}

SimResult simulatedOnTopology(const BuiltPlan& b) {
  auto sim = simulate(b.plan, b.graph, b.cost);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? std::move(*sim) : SimResult{};
}

TEST(Topology, LinksInsideANodeAreTheDefaultAndBetweenNodesTheInterNodeOne) {
  const BuiltPlan b = built(cluster(2, 2, "2x2"));
  EXPECT_EQ(b.cost.nodeOf(1), 0);
  EXPECT_EQ(b.cost.nodeOf(2), 1);
  EXPECT_DOUBLE_EQ(b.cost.link(0, 1).bytesPerNs, 1.0);
  EXPECT_DOUBLE_EQ(b.cost.link(1, 2).bytesPerNs, 0.1);
  EXPECT_TRUE(b.cost.crossesNodes(3, 0));
  // The cost file keeps the topology (a run's embedded costs rerun with it).
  auto again = parseCostJson(writeCostJson(b.cost), "round trip");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->topology.gpusPerNode, 2);
  EXPECT_DOUBLE_EQ(again->topology.interNode.bytesPerNs, 0.1);
}

// Both replicas' stage-0 → stage-1 boundaries cross from node 0 to node 1 (mapping 0,2,1,3):
// the two activations queue on the one shared link instead of flowing side by side.
TEST(Topology, TransfersBetweenTheSameTwoNodesQueueOnTheSharedLink) {
  PlanSpec spec = cluster(2, 2, "2x2");
  spec.mapping = "0,2,1,3";  // replica 0 on devices 0, 2; replica 1 on devices 1, 3
  const SimResult sim = simulatedOnTopology(built(spec));
  const std::int64_t occupy = static_cast<std::int64_t>(kMappingMiB / 16 / 0.1 + 0.5);
  std::vector<SimTransfer> first;  // the first activation out of each replica: F0 and F2
  for (const SimTransfer& t : sim.transfers) {
    const int mb = sim.records[static_cast<std::size_t>(t.producer)].microbatch;
    if (t.kind == OpKind::SEND_F && (mb == 0 || mb == 2)) first.push_back(t);
  }
  ASSERT_EQ(first.size(), 2u);
  std::sort(first.begin(), first.end(),
            [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  EXPECT_EQ(first[0].send_end_ns - first[0].start_ns, occupy);
  EXPECT_EQ(first[1].start_ns, first[0].send_end_ns) << "the second waits for the shared link";
}

// The replicas' gradient all-reduce: in rank order each replica fills a node, so all four
// stages exchange over the shared link at once (4 × 1 MiB at 0.1 byte/ns); with both copies of
// every stage on one node (mapping 0,1,4,5,2,3,6,7) each exchange takes the fast link.
TEST(Topology, TheAllReduceQueuesOnTheSharedLinkUnlessReplicasShareANode) {
  const BuiltPlan rankOrder = built(cluster(4, 2, "2x4"));
  EXPECT_EQ(sim::replicaAllReduceNs(rankOrder.plan, rankOrder.cost),
            static_cast<std::int64_t>(4 * kMappingMiB / 0.1 + 0.5));
  PlanSpec paired = cluster(4, 2, "2x4");
  paired.mapping = "0,1,4,5,2,3,6,7";
  const BuiltPlan together = built(paired);
  EXPECT_EQ(sim::replicaAllReduceNs(together.plan, together.cost),
            static_cast<std::int64_t>(kMappingMiB));
  EXPECT_LT(simulatedOnTopology(together).makespan, simulatedOnTopology(rankOrder).makespan);
}

TEST(DeviceMapping, ReplicasRunTheSameProgramOnTheirOwnRanksAndMicroBatches) {
  PlanSpec spec = cluster(3, 2, "");
  spec.microbatches = 6;
  const BuiltPlan b = built(spec);
  ASSERT_EQ(b.plan.numRanks, 6);
  ASSERT_EQ(b.plan.numReplicas(), 2);
  EXPECT_EQ(b.plan.placement[1][2].rank, 5);
  EXPECT_EQ(b.plan.numMicrobatches(), 6);
  EXPECT_EQ(b.plan.replicaOf(2), 0);
  EXPECT_EQ(b.plan.replicaOf(3), 1);
  ASSERT_EQ(b.plan.programs[1].size(), b.plan.programs[4].size());
  for (std::size_t i = 0; i < b.plan.programs[1].size(); ++i) {
    const Action& a = b.plan.programs[1][i];
    const Action& twin = b.plan.programs[4][i];
    EXPECT_EQ(twin.kind, a.kind);
    EXPECT_EQ(twin.microbatch, a.microbatch < 0 ? -1 : a.microbatch + 3);
  }
  EXPECT_EQ(planRunName(b.plan), "1f1b p=3 m=6 dp=2");
  EXPECT_THAT(b.configJson, HasSubstr("\"stages\":3,\"dp\":2"));
}

TEST(DeviceMapping, AMappingMovesEachRanksProgramToItsDevice) {
  PlanSpec spec = cluster(4, 1, "");
  const BuiltPlan plain = built(spec);
  spec.mapping = "3,2,1,0";
  const BuiltPlan reversed = built(spec);
  EXPECT_EQ(reversed.deviceOrder, (std::vector<int>{3, 2, 1, 0}));
  EXPECT_EQ(reversed.plan.placement[0][0].rank, 3);
  EXPECT_EQ(reversed.plan.programs[3], plain.plan.programs[0]);
  EXPECT_THAT(reversed.configJson, HasSubstr("\"mapping\":\"3,2,1,0\""));
  EXPECT_EQ(simulatedOnTopology(reversed).makespan, simulatedOnTopology(plain).makespan)
      << "no topology: alike";
}

// The headline: on 2 nodes × 4 GPUs the searched mapping beats the naive rank order, and finds
// the mapping that keeps both replicas of each stage on one node.
TEST(MappingSearch, FindsAMappingFasterThanRankOrderOnTwoNodes) {
  PlanSpec spec = cluster(4, 2, "2x4");
  spec.mapping = "auto";
  const BuiltPlan searched = built(spec);
  ASSERT_EQ(searched.deviceOrder.size(), 8u);
  for (int s = 0; s < 4; ++s)
    EXPECT_EQ(searched.cost.nodeOf(searched.plan.placement[0][s].rank),
              searched.cost.nodeOf(searched.plan.placement[1][s].rank))
        << "stage " << s << "'s replicas share a node";
  ASSERT_FALSE(searched.notes.empty());
  EXPECT_THAT(searched.notes.back(), HasSubstr("mappings simulated"));
  PlanSpec naive = cluster(4, 2, "2x4");
  EXPECT_LT(simulatedOnTopology(searched).makespan, simulatedOnTopology(built(naive)).makespan);
  PlanSpec paired = naive;
  paired.mapping = "0,1,4,5,2,3,6,7";
  EXPECT_LE(simulatedOnTopology(searched).makespan, simulatedOnTopology(built(paired)).makespan);
}

TEST(MappingSearch, NeverReturnsAMappingSlowerThanRankOrder) {
  int calls = 0;
  auto found = searchDeviceMapping(4, 2, [&](const std::vector<int>& d) -> Result<std::int64_t> {
    ++calls;
    return isRankOrder(d) ? 10 : 11;
  });
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(isRankOrder(found->deviceOf));
  EXPECT_EQ(found->stepNs, 10);
  EXPECT_EQ(found->evaluated, calls);
  // 4 ranks on 2 nodes of 2: 3 ways to share them out, then 6 swaps.
  EXPECT_EQ(calls, 1 + 3 + 6);
}

// Explore from a replicated, searched plan (the app's Explore panel sweeps around the plan it
// shows): the probe that fixes the model must not inherit the replicas.
TEST(MappingSearch, ExploreSweepsReplicasAndMappingsAroundAReplicatedPlan) {
  ExploreSpec spec;
  spec.base = cluster(8, 1, "2x4");
  spec.base.dataParallel = 2;
  spec.base.mapping = "auto";
  spec.schedules = {"1f1b"};
  spec.microbatches = {8};
  spec.dataParallel = {1, 2};
  spec.mappings = {"", "auto"};
  auto result = explorePlans(spec);
  ASSERT_TRUE(result.ok()) << result.error();
  bool searchedReplicas = false;
  for (const ExploreCandidate& c : result->ranked)
    searchedReplicas |= c.dataParallel == 2 && !c.mapping.empty();
  EXPECT_TRUE(searchedReplicas);
  // Of the replicated candidates the searched mapping ranks first (both copies of a stage on
  // one node), and its spec rebuilds that mapping.
  const auto best = std::find_if(result->ranked.begin(), result->ranked.end(),
                                 [](const ExploreCandidate& c) { return c.dataParallel == 2; });
  ASSERT_NE(best, result->ranked.end());
  EXPECT_FALSE(best->mapping.empty());
  auto again = buildPlan(candidateSpec(spec, *best, result->layers));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(deviceOrderText(again->deviceOrder), best->mapping);
}

TEST(DeviceMapping, BadValuesNameTheirFlag) {
  auto error = [](PlanSpec spec) {
    auto b = buildPlan(spec);
    return b.ok() ? std::string("built") : b.error();
  };
  PlanSpec spec = cluster(4, 2, "2x4");
  spec.topology = "3x4";
  EXPECT_THAT(error(spec), HasSubstr("--topology 3x4: 12 devices for 8 ranks"));
  spec.topology = "two";
  EXPECT_THAT(error(spec), HasSubstr("--topology two: expected NxG"));
  spec = cluster(4, 2, "2x4");
  spec.mapping = "0,1,2";
  EXPECT_THAT(error(spec), HasSubstr("--mapping 0,1,2: 3 device(s) for 8 ranks"));
  spec.mapping = "0,1,2,3,4,5,6,6";
  EXPECT_THAT(error(spec), HasSubstr("device 6 is named twice"));
  spec.mapping = "0,1,2,3,4,5,6,x";
  EXPECT_THAT(error(spec), HasSubstr("'x' is not a device number"));
  spec = cluster(4, 2, "2x4");
  spec.microbatches = 5;
  EXPECT_THAT(error(spec), HasSubstr("--dp 2: --microbatches 5 does not share out evenly"));
  spec = cluster(4, 2, "");
  spec.microbatches = 8;
  spec.schedule = "chimera";
  EXPECT_THAT(error(spec), HasSubstr("--dp 2: chimera already runs 2 replicas"));
  spec.schedule = "pipedream";
  EXPECT_THAT(error(spec), HasSubstr("is asynchronous"));
  spec = cluster(4, 1, "");
  spec.interGbps = 10;
  EXPECT_THAT(error(spec), HasSubstr("give the nodes with --topology"));
}

}  // namespace
}  // namespace ps::runtime
