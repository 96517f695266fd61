// Piper's expert parallelism on the cpu backend (issue 35 item 4): with --model moe, --dp R and
// an all-to-all (--a2a-mb), each replica's copy of a stage holds experts/R of each MoE layer's
// experts and the tokens reach the others' through the transport. The model is the same as with
// every expert in one place: the run lands on the unpipelined model's losses and weights, and
// each F and I of a stage records its all-to-alls. Overlapped, one micro-batch's all-to-all waits
// while the next one computes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

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

// Piper's overlap: with --a2a overlap each rank runs its program on two lanes, one micro-batch's
// all-to-all in flight while the next computes; serial, an op holds the rank until its tokens
// are back. A slow link's latency (3 ms a message) makes every exchange wait.
struct OverlapRun {
  std::vector<double> losses;
  std::optional<trace::RunTrace> trace;
};

OverlapRun overExperts(const std::string& schedule, const std::string& a2a,
                       const test::TempDir& dir) {
  PlanSpec spec = piper(schedule, 2);
  spec.a2a = a2a;
  spec.steps = 2;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return {};
  CpuRunOptions options = moeOptions();
  options.linkLatencyUs = 3000;
  OverlapRun out;
  out.trace =
      test::recordedRun(dir, schedule + a2a, built->plan.numRanks, [&](trace::TraceWriter* writer) {
        auto run = runOnCpuThreads(built->plan, built->graph, options, writer);
        if (run.ok()) out.losses = run->stepLoss;
        return run;
      });
  return out;
}

// Pairs (i, j) of a rank's ops of micro-batches i != j whose times overlap, `earlier` of kind
// `a` and `later` of kind `b`, over every rank.
int overlappingPairs(const trace::RunTrace& run, trace::Lane laneA, OpKind a, OpKind b) {
  int pairs = 0;
  for (const auto& rank : run.ranks) {
    const trace::OpColumns& as = rank.lane(laneA);
    const trace::OpColumns& bs = rank.lane(trace::Lane::Compute);
    for (std::size_t i = 0; i < as.size(); ++i)
      for (std::size_t j = 0; j < bs.size(); ++j)
        if (as.kind[i] == a && bs.kind[j] == b && as.microbatch[i] != bs.microbatch[j] &&
            as.start[i] < bs.end[j] && bs.start[j] < as.end[i])
          ++pairs;
  }
  return pairs;
}

class ExpertParallelOverlap : public ::testing::TestWithParam<std::string> {};

TEST_P(ExpertParallelOverlap, OneMicrobatchsAllToAllRunsBesideTheNextOnesCompute) {
  test::TempDir dir;
  const OverlapRun overlapped = overExperts(GetParam(), "overlap", dir);
  const OverlapRun serial = overExperts(GetParam(), "serial", dir);
  ASSERT_TRUE(overlapped.trace && serial.trace);
  // Overlapped: a forward starts while another's exchange is out; an all-to-all of one
  // micro-batch waits while another micro-batch's F computes.
  EXPECT_GT(overlappingPairs(*overlapped.trace, trace::Lane::Compute, OpKind::F, OpKind::F), 0);
  EXPECT_GT(overlappingPairs(*overlapped.trace, trace::Lane::Collective, OpKind::A2A, OpKind::F),
            0);
  // Serial: nothing of another micro-batch runs while an op waits for its tokens.
  for (OpKind k : {OpKind::F, OpKind::B, OpKind::I})
    EXPECT_EQ(overlappingPairs(*serial.trace, trace::Lane::Compute, k, k), 0);
  EXPECT_EQ(overlappingPairs(*serial.trace, trace::Lane::Collective, OpKind::A2A, OpKind::F), 0);
  // The same training either way (gradients may add up in another order).
  ASSERT_EQ(overlapped.losses.size(), 2u);
  ASSERT_EQ(serial.losses.size(), 2u);
  for (std::size_t s = 0; s < 2; ++s)
    EXPECT_NEAR(overlapped.losses[s], serial.losses[s], 1e-6 * serial.losses[s]);
}

INSTANTIATE_TEST_SUITE_P(Cpu, ExpertParallelOverlap, ::testing::Values("gpipe", "1f1b", "zb-h1"),
                         [](const auto& c) {
                           std::string n = c.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(ExpertParallelOverlapFailure, AnOpThatFailsBesideAWaitingOneEndsTheRunWithItsMessage) {
  auto built = buildPlan(piper("gpipe", 2));
  ASSERT_TRUE(built.ok()) << built.error();
  CpuRunOptions options = moeOptions();
  options.linkLatencyUs = 3000;
  // F of micro-batch 1 starts while micro-batch 0's tokens are still on the slow link.
  options.beforeAction = [](int rank, const Action& a) {
    if (rank == 0 && a.kind == OpKind::F && a.microbatch == 1)
      throw std::runtime_error("expert shard lost");
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto run = runOnCpuThreads(built->plan, built->graph, options, nullptr);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->status, trace::RunStatus::Failed);
  EXPECT_THAT(run->message, HasSubstr("rank 0: 0F1: expert shard lost"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

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
