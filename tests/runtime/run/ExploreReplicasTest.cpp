// Issue 34 item 6: Explore on the Piper preset (4 layers, GPipe on 4 stages twice: 8 devices)
// failed outright with "--layers: the model has 4 layers, fewer than the 8 stages": the sweep
// checked the model against every device as one pipeline. It sweeps the replicated pipelines
// now, and refuses the 8-stage ones one by one, saying why.

#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/run/Explore.h"

namespace ps::runtime {
namespace {

ExploreSpec piperLike() {
  ExploreSpec spec;
  spec.base.stages = 8;  // the devices: 4 stages x 2 replicas
  spec.base.layers = 4;
  spec.base.uniform.fwdUs = 1000;
  spec.base.uniform.bwdUs = 2000;
  spec.schedules = {"gpipe", "1f1b"};
  spec.microbatches = {16};
  spec.chunks = {1};
  spec.dataParallel = {1, 2};
  return spec;
}

TEST(ExploreReplicas, AModelOfFewerLayersThanDevicesSweepsItsReplicatedPipelines) {
  auto result = explorePlans(piperLike());
  ASSERT_TRUE(result) << result.error();
  ASSERT_FALSE(result->ranked.empty());
  for (const auto& c : result->ranked)
    EXPECT_EQ(c.dataParallel, 2) << c.schedule << ": one pipeline of 8 stages has no 4-layer cut";
  const bool saidWhy =
      std::any_of(result->refused.begin(), result->refused.end(), [](const auto& r) {
        return r.what.find("dp=") == std::string::npos && r.why.find("layer") != std::string::npos;
      });
  EXPECT_TRUE(saidWhy) << "the single 8-stage pipelines are refused with the reason";
}

TEST(ExploreReplicas, TooFewLayersForEveryCandidateIsStillAnError) {
  ExploreSpec spec = piperLike();
  spec.base.layers = 3;  // fewer than the 4 stages of the most replicated candidate
  auto result = explorePlans(spec);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "--layers: the model has 3 layers, fewer than the 4 stages");
}

}  // namespace
}  // namespace ps::runtime
