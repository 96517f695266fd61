// Luo et al.'s clusters need not be uniform (issue 35 item 7): --topology 4+2+2 (or a cost
// file's "nodes": [4, 2, 2]) groups the devices into nodes of different sizes. Ranks map to
// nodes by those runs, transfers between nodes take the shared inter-node link, the cost file
// keeps the shape, and the mapping search shares the ranks over nodes of those sizes. And a
// cluster with a network card per device (--inter-links device) gives each pair of devices its
// own inter-node link, so the naive mapping's all-reduce no longer queues on one shared link.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "runtime/cost/CostJson.h"
#include "runtime/run/DeviceMapping.h"
#include "runtime/run/Presets.h"
#include "runtime/run/RunPlan.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

// 1F1B over 4 stages x 2 replicas (8 devices), 1 MiB of parameters a layer: the replicas'
// gradient exchanges dominate and are slow between nodes.
PlanSpec unevenCluster(const std::string& topology, const std::string& mapping) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.dataParallel = 2;
  spec.microbatches = 8;
  spec.uniform.actMb = 1.0 / 16;
  spec.uniform.paramMb = 1;
  spec.uniform.linkGbps = 8;
  spec.topology = topology;
  spec.interGbps = 0.8;
  spec.mapping = mapping;
  return spec;
}

TEST(UnevenNodes, ParseIntoNodesOfTheirOwnSizes) {
  auto shape = parseTopology("4+2+2");
  ASSERT_TRUE(shape.ok()) << shape.error();
  EXPECT_EQ(shape->nodeSizes(), (std::vector<int>{4, 2, 2}));
  EXPECT_EQ(shape->devices(), 8);
  EXPECT_EQ(parseTopology("2x4")->nodeSizes(), (std::vector<int>{4, 4}));
  for (const char* bad : {"4+", "+2", "4+0+2", "4+x", "4++2"})
    EXPECT_THAT(parseTopology(bad).error(), HasSubstr("--topology")) << bad;
  auto wrong = buildPlan(unevenCluster("4+2+1", ""));
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.error(), HasSubstr("7 devices for 8 ranks"));
}

TEST(UnevenNodes, RanksFallInTheirNodesAndTheCostFileKeepsTheShape) {
  auto built = buildPlan(unevenCluster("4+2+2", ""));
  ASSERT_TRUE(built.ok()) << built.error();
  const CostModel& c = built->cost;
  EXPECT_EQ(c.nodeOf(3), 0);
  EXPECT_EQ(c.nodeOf(4), 1);
  EXPECT_EQ(c.nodeOf(5), 1);
  EXPECT_EQ(c.nodeOf(6), 2);
  EXPECT_FALSE(c.crossesNodes(0, 3));
  EXPECT_TRUE(c.crossesNodes(5, 6));
  EXPECT_DOUBLE_EQ(c.link(5, 6).bytesPerNs, 0.1);
  auto again = parseCostJson(writeCostJson(c), "round trip");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->topology.nodeSizes, (std::vector<int>{4, 2, 2}));
  EXPECT_THAT(
      parseCostJson(R"({"format":"pipescope-costs","version":1,"layers":[{"fwd_us":1,"bwd_us":2}],
                                "topology":{"nodes":[4,0]}})",
                    "bad.json")
          .error(),
      HasSubstr("nodes"));
}

TEST(UnevenNodes, TheMappingSearchSharesTheRanksOverTheNodesAndBeatsRankOrder) {
  auto rankOrder = buildPlan(unevenCluster("4+2+2", ""));
  auto searched = buildPlan(unevenCluster("4+2+2", "auto"));
  ASSERT_TRUE(rankOrder.ok() && searched.ok());
  auto a = simulatePlan(*rankOrder, nullptr);
  auto b = simulatePlan(*searched, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(b->makespan, a->makespan) << "the searched mapping is faster on 4+2+2";
  const auto& devices = searched->deviceOrder;
  ASSERT_EQ(devices.size(), 8u);
  EXPECT_EQ(std::set<int>(devices.begin(), devices.end()).size(), 8u) << "a permutation";
}

std::int64_t presetStep(const std::string& name, const std::string& interLinks) {
  auto preset = findPreset(name);
  EXPECT_TRUE(preset.ok()) << preset.error();
  if (!preset.ok()) return 0;
  PlanSpec spec = preset->spec;
  spec.interLinks = interLinks;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return 0;
  auto sim = simulatePlan(*built, nullptr);
  EXPECT_TRUE(sim.ok()) << sim.error();
  return sim.ok() ? sim->makespan : 0;
}

TEST(InterLinks, ACardPerDeviceRemovesTheRankOrdersQueueOnTheSharedLink) {
  const std::int64_t shared = presetStep("topology-mapping-baseline", "node");
  const std::int64_t perDevice = presetStep("topology-mapping-baseline", "device");
  const std::int64_t mapped = presetStep("topology-mapping", "node");
  EXPECT_EQ(shared, presetStep("topology-mapping-baseline", "")) << "node is the default";
  EXPECT_LT(perDevice, mapped) << "no queue at all beats the best mapping onto one shared link";
  EXPECT_GT(static_cast<double>(shared), 1.4 * static_cast<double>(perDevice));
  auto preset = findPreset("topology-mapping-baseline");
  ASSERT_TRUE(preset.ok());
  PlanSpec spec = preset->spec;
  spec.interLinks = "device";
  auto built = buildPlan(spec);
  ASSERT_TRUE(built.ok()) << built.error();
  EXPECT_FALSE(built->cost.topology.sharedLink);
  auto again = parseCostJson(writeCostJson(built->cost), "round trip");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_FALSE(again->topology.sharedLink);
  spec.interLinks = "rack";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("--inter-links rack"));
}

}  // namespace
}  // namespace ps::runtime
