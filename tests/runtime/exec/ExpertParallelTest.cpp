// Piper's expert parallelism on the cpu backend (issue 35 item 4): with --model moe, --dp R and
// an all-to-all (--a2a-mb), each replica's copy of a stage holds experts/R of each MoE layer's
// experts and the tokens reach the others' through the transport. The model is the same as with
// every expert in one place: the run lands on the unpipelined model's losses and weights, and
// each F and I of a stage records its all-to-alls.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/ReferenceTrainer.h"
#include "runtime/run/BackendRefusals.h"
#include "runtime/run/PlanBuilder.h"
#include "tests/runtime/ExecutorTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

PlanSpec piper(const std::string& schedule, int dp) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = 2;
  spec.microbatches = 4 * dp;
  spec.dataParallel = dp;
  spec.layers = 4;
  spec.steps = 3;
  spec.a2aMb = 1;
  spec.uniform.linkGbps = 100;
  return spec;
}

CpuRunOptions moeOptions() {
  return test::smallAdamRun(BlockType::Moe);
}

struct EpCase {
  std::string schedule;
  int dp;
};

class ExpertParallel : public ::testing::TestWithParam<EpCase> {};

TEST_P(ExpertParallel, ShardedExpertsTrainTheUnpipelinedModel) {
  const auto [schedule, dp] = GetParam();
  auto built = buildPlan(piper(schedule, dp));
  ASSERT_TRUE(built.ok()) << built.error();
  CpuRunResult run;
  ReferenceRun ref;
  ASSERT_TRUE(test::trainAgainstReference(*built, moeOptions(), run, ref));
  ASSERT_EQ(run.stepLoss.size(), 3u);
  // Replica 0's weights: the router and its own experts (half of each layer's, or a third).
  EXPECT_LT(run.finalParams.size(), ref.params.size());
  EXPECT_LT(run.stepLoss.back(), run.stepLoss.front());
}

INSTANTIATE_TEST_SUITE_P(Cpu, ExpertParallel,
                         ::testing::Values(EpCase{"gpipe", 2}, EpCase{"1f1b", 2},
                                           EpCase{"zb-h1", 2}),
                         [](const auto& c) {
                           std::string n = c.param.schedule + "_dp" + std::to_string(c.param.dp);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(ExpertParallelPlans, TheAllToAllNeedsAMixtureOfExpertsThatSharesOut) {
  auto built = buildPlan(piper("gpipe", 2));
  ASSERT_TRUE(built.ok()) << built.error();
  ModelConfig mlp;
  Status refused = checkModelFeatures(built->plan, mlp);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("--a2a-mb: the cpu backend's all-to-all"));
  ModelConfig moe;
  moe.block = BlockType::Moe;
  moe.experts = 3;
  refused = checkModelFeatures(built->plan, moe);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("3 experts do not share out evenly over the 2"));
  const Status cpu = checkPlanFeatures(Backend::Cpu, false, built->plan, nullptr);
  EXPECT_TRUE(cpu.ok()) << cpu.error();
  EXPECT_FALSE(checkPlanFeatures(Backend::Cuda, false, built->plan, nullptr).ok());
}

}  // namespace
}  // namespace ps::runtime
