// The cuda backend's device-independent planning, tested without a GPU: event times onto the
// host axis, ranks onto devices, the memory check that refuses a plan before launch, the SM
// shares of --sm-split and the NCCL version check.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cuda/DeviceFit.h"
#include "runtime/cuda/EventTimeline.h"
#include "runtime/cuda/NcclVersion.h"
#include "runtime/cuda/SmShareSize.h"
#include "runtime/model/Layer.h"
#include "runtime/run/PlanBuilder.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(EventTimeline, OpsMapThroughTheirStepAnchor) {
  EventTimeline t(1'000);                   // anchor 0 completed 1 µs after the run's start
  EXPECT_EQ(t.toHostNs(0, 0.0025), 3'500);  // 2.5 µs later
  EXPECT_EQ(t.addAnchor(10.0), 1);          // step 1's anchor, 10 ms after anchor 0
  EXPECT_EQ(t.anchorNs(1), 10'001'000);
  EXPECT_EQ(t.toHostNs(1, 0.000'4), 10'001'400);
  EXPECT_EQ(t.toHostNs(1, -0.001), 10'000'000);  // an event on another stream, before it
}

TEST(EventTimeline, ALongRunKeepsNanosecondPrecision) {
  // 100 000 steps of 12.345678 ms: a single float elapsed time from the run's start would be off
  // by tens of µs by the end; chained anchors summed in integers are exact to the ns.
  EventTimeline t(0);
  for (int i = 0; i < 100'000; ++i)
    t.addAnchor(static_cast<float>(12.345678));
  const std::int64_t step = msToNs(static_cast<float>(12.345678));
  EXPECT_EQ(t.anchorNs(100'000), step * 100'000);
  EXPECT_EQ(t.toHostNs(100'000, 0.001), step * 100'000 + 1'000);
}

TEST(EventTimeline, MillisecondsRoundToTheNearestNanosecond) {
  EXPECT_EQ(msToNs(0.0000004), 0);
  EXPECT_EQ(msToNs(0.0000006), 1);
  EXPECT_EQ(msToNs(-0.0000006), -1);
  EXPECT_EQ(msToNs(1.5), 1'500'000);
}

TEST(DevicePlacement, OneGpuPerRankWhenThereAreEnough) {
  EXPECT_EQ(placeRanksOnDevices(4, 8), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(placeRanksOnDevices(4, 4), (std::vector<int>{0, 1, 2, 3}));
}

TEST(DevicePlacement, RanksShareFewerGpusInContiguousBlocks) {
  EXPECT_EQ(placeRanksOnDevices(4, 1), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(placeRanksOnDevices(5, 2), (std::vector<int>{0, 0, 0, 1, 1}));
  EXPECT_EQ(placeRanksOnDevices(8, 4), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
}

TEST(DevicePlacement, NcclOnlyForTwoOrMoreRanksWithAGpuEach) {
  EXPECT_FALSE(ranksUseNccl(1, 1));  // one rank talks to no one: libnccl stays closed
  EXPECT_FALSE(ranksUseNccl(1, 8));
  EXPECT_TRUE(ranksUseNccl(2, 2));
  EXPECT_TRUE(ranksUseNccl(4, 8));
  EXPECT_FALSE(ranksUseNccl(4, 2));  // ranks share GPUs: peer copies
}

TEST(SmShares, GranuleIsTheLargerOfAlignmentAndMinimumPartition) {
  EXPECT_EQ(smShareGranule(2, 8, 9), 8u);  // minSmPartitionSize wins (was: alignment alone, 2)
  EXPECT_EQ(smShareGranule(8, 4, 9), 8u);
  EXPECT_EQ(smShareGranule(4, 0, 8), 4u);
  // Both read 0: cuda.h's guideline by architecture (was 1, any SM count).
  EXPECT_EQ(smShareGranule(0, 0, 9), 8u);
  EXPECT_EQ(smShareGranule(0, 0, 10), 8u);
  EXPECT_EQ(smShareGranule(0, 0, 8), 4u);
  EXPECT_EQ(smShareGranule(0, 0, 7), 2u);
}

TEST(SmShares, AnH200SplitsIntoMultiplesOfEight) {
  // H200: 132 SMs. With the old granule of 1, four ranks got 33 each, which Hopper cannot give.
  const unsigned granule = smShareGranule(0, 0, 9);
  EXPECT_EQ(smsPerShare(132, 4, granule), 32u);
  EXPECT_EQ(smsPerShare(132, 2, granule), 64u);
  EXPECT_EQ(smsPerShare(132, 3, granule), 40u);
  EXPECT_EQ(smsPerShare(132, 16, granule), 8u);
  EXPECT_EQ(smsPerShare(132, 17, granule), 0u);  // not one granule each: refused
  EXPECT_EQ(smsPerShare(132, 0, granule), 0u);
  EXPECT_EQ(describeSmShares(4, 32, 8, 132, 0),
            "green contexts on GPU 0: 4 ranks x 32 of its 132 SMs (shares in multiples of 8)");
}

TEST(NcclVersion, CodesReadInBothSchemes) {
  EXPECT_EQ(ncclVersionText(22809), "2.28.9");
  EXPECT_EQ(ncclVersionText(2804), "2.8.4");  // before 2.9: major·1000
  EXPECT_EQ(ncclVersionText(30001), "3.0.1");
}

TEST(NcclVersion, AnOlderOrOtherMajorLibraryIsRefusedNamingBoth) {
  EXPECT_EQ(ncclVersionProblem(22809, 22809, "libnccl.so.2"), "");
  EXPECT_EQ(ncclVersionProblem(22903, 22809, "libnccl.so.2"), "");  // newer minor: fine
  EXPECT_EQ(ncclVersionProblem(22801, 22809, "libnccl.so.2"), "");  // older patch: same API
  const std::string old = ncclVersionProblem(21803, 22809, "libnccl.so.2");
  EXPECT_THAT(old, HasSubstr("libnccl.so.2 is NCCL 2.18.3"));
  EXPECT_THAT(old, HasSubstr("nccl.h of NCCL 2.28.9"));
  EXPECT_THAT(old, HasSubstr("install NCCL 2.28 or newer"));
  EXPECT_THAT(ncclVersionProblem(2804, 22809, "libnccl.so.2"), HasSubstr("NCCL 2.8.4"));
  EXPECT_THAT(ncclVersionProblem(30001, 22809, "libnccl.so.2"), HasSubstr("NCCL 3.0.1"));
}

BuiltPlan plan(const std::string& schedule, int p, int m) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = p;
  spec.microbatches = m;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  return std::move(*built);
}

TEST(DeviceFit, GpipeHoldsEveryMicrobatchAndOneFOneBAtMostP) {
  ModelConfig model;
  model.hidden = 64;
  model.seq = 32;
  model.microbatchSize = 4;
  OptimizerConfig sgd;
  const auto gpipe = estimateRankBytes(plan("gpipe", 4, 16).plan, model, sgd);
  const auto onefoneb = estimateRankBytes(plan("1f1b", 4, 16).plan, model, sgd);
  ASSERT_EQ(gpipe.size(), 4u);
  // Same weights, so the difference is activations: 16 in flight against 4 − r on rank r.
  const std::int64_t diff0 = gpipe[0] - onefoneb[0];
  const std::int64_t diff3 = gpipe[3] - onefoneb[3];
  EXPECT_GT(diff0, 0);
  EXPECT_EQ(diff0 * 15, diff3 * 12);  // rank 0 keeps 4, rank 3 keeps 1: 12 and 15 stashes fewer
}

TEST(DeviceFit, AdamAddsTwoCopiesOfTheWeights) {
  ModelConfig model;
  const BuiltPlan built = plan("1f1b", 2, 4);
  OptimizerConfig sgd;
  OptimizerConfig adam;
  adam.kind = OptimizerKind::Adam;
  const auto a = estimateRankBytes(built.plan, model, sgd);
  const auto b = estimateRankBytes(built.plan, model, adam);
  ModelConfig one = model;
  one.layers = built.plan.numLayers;
  const std::int64_t layerBytes = 4 * static_cast<std::int64_t>(makeLayer(one)->paramCount());
  const auto& st = built.plan.placement[0][0];
  EXPECT_EQ(b[0] - a[0], 2 * layerBytes * (st.lastLayer - st.firstLayer + 1));
}

TEST(DeviceFit, ShortfallNamesTheDeviceRanksAndNumbers) {
  const std::vector<int> placement{0, 0, 1};
  const std::vector<std::int64_t> bytes{3LL << 30, 2LL << 30, 1LL << 30};
  const std::vector<DeviceMemory> devices{{0, "NVIDIA H200", 4LL << 30},
                                          {1, "NVIDIA H200", 8LL << 30}};
  EXPECT_THAT(memoryShortfall(placement, bytes, devices),
              HasSubstr("GPU 0 (NVIDIA H200) needs 5.0 GiB for ranks 0,1 but has 4.0 GiB free"));
  const std::vector<DeviceMemory> roomy{{0, "A", 6LL << 30}, {1, "B", 1LL << 30}};
  EXPECT_EQ(memoryShortfall(placement, bytes, roomy), "");
}

}  // namespace
}  // namespace ps::runtime
