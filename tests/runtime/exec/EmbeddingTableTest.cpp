// NestPipe's embedding table on the cpu backend (issue 35 item 3): with --fetch-mb the first
// stage's input is the rows of a table sharded over every rank of the pipeline, gathered from
// them for each micro-batch, and the rows train: the sharded run lands on the unpipelined model
// with the whole table (losses and weights within 1e-5).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/EmbeddingTable.h"
#include "runtime/model/ReferenceTrainer.h"
#include "runtime/run/BackendRefusals.h"
#include "runtime/run/PlanBuilder.h"
#include "tests/runtime/ExecutorTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(EmbeddingTable, ShardsGatherTheirRowsAndPackingRoundTrips) {
  ModelConfig config;
  config.hidden = 2;
  config.embeddingRows = 10;
  OptimizerConfig sgd;
  auto whole = EmbeddingTable::create(config, 1, 0, sgd, std::make_shared<MemoryCounter>());
  auto shard1 = EmbeddingTable::create(config, 3, 1, sgd, std::make_shared<MemoryCounter>());
  ASSERT_TRUE(whole.ok() && shard1.ok());
  const std::vector<int> ids = {4, 0, 7, 4, 9};
  // Shard 1 of 3 holds rows 1, 4, 7: tokens 0, 2, 3, with the whole table's values.
  const std::vector<float> all = (*whole)->gather(ids), mine = (*shard1)->gather(ids);
  ASSERT_EQ(mine.size(), 6u);
  EXPECT_EQ(mine[0], all[0]);
  EXPECT_EQ(mine[2], all[4]);
  EXPECT_EQ(mine[5], all[7]);
  const auto parts = packByShard(ids, all.data(), 2, 3);
  EXPECT_EQ(parts[1], mine);
  std::vector<float> back(all.size(), 0.0f);
  for (int s = 0; s < 3; ++s)
    unpackShard(ids, parts[static_cast<std::size_t>(s)], 2, 3, s, back.data());
  EXPECT_EQ(back, all);
}

PlanSpec nestpipe(int steps) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.stages = 4;
  spec.microbatches = 4;
  spec.steps = steps;
  spec.fetchMb = 1;
  spec.uniform.linkGbps = 100;
  return spec;
}

CpuRunOptions smallModel() {
  CpuRunOptions options = test::smallAdamRun(BlockType::Mlp, 42);
  options.model.embeddingRows = 64;
  return options;
}

TEST(NestPipeTraining, TheShardedTableTrainsTheUnpipelinedModel) {
  auto built = buildPlan(nestpipe(4));
  ASSERT_TRUE(built.ok()) << built.error();
  const CpuRunOptions options = smallModel();
  CpuRunResult run;
  ReferenceRun ref;
  ASSERT_TRUE(test::trainAgainstReference(*built, options, run, ref));
  ASSERT_EQ(run.stepLoss.size(), 4u);
  EXPECT_LE(test::maxRelError(run.finalParams, ref.params), 1e-5);
  EXPECT_LT(run.stepLoss.back(), run.stepLoss.front());
  ModelConfig whole = options.model;
  whole.layers = built->plan.numLayers;
  // Without the table's rows (the synthetic features as input) the model trains differently.
  ModelConfig plain = whole;
  plain.embeddingRows = 0;
  auto features0 = referenceTrain(plain, 4, 4, options.optimizer);
  ASSERT_TRUE(features0.ok());
  EXPECT_GT(std::fabs(features0->losses[0] - ref.losses[0]), 1e-3);
}

TEST(NestPipeTraining, TheTableIsOnePipelinesOnTheCpuBackend) {
  PlanSpec dp = nestpipe(1);
  dp.dataParallel = 2;
  dp.microbatches = 8;
  auto built = buildPlan(dp);
  ASSERT_TRUE(built.ok()) << built.error();
  const Status refused = checkModelFeatures(built->plan, smallModel().model);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("--fetch-mb: the cpu backend shards its embedding"));
  auto one = buildPlan(nestpipe(1));
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(checkPlanFeatures(Backend::Cpu, false, one->plan, nullptr).ok());
  EXPECT_FALSE(checkPlanFeatures(Backend::Cuda, false, one->plan, nullptr).ok());
}

}  // namespace
}  // namespace ps::runtime
