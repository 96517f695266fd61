// NestPipe's embedding table on the cpu backend (issue 35 item 3): with --fetch-mb the first
// stage's input is the rows of a table sharded over every rank of the pipeline, gathered from
// them for each micro-batch, and the rows train: the sharded run lands on the unpipelined model
// with the whole table (losses and weights within 1e-5). Key-centric clustering regroups a step's
// samples so each gather moves fewer distinct rows, training on the same samples.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/EmbeddingTable.h"
#include "runtime/model/KeyClustering.h"
#include "runtime/model/ReferenceTrainer.h"
#include "runtime/run/BackendRefusals.h"
#include "runtime/run/PlanBuilder.h"
#include "tests/runtime/ExecutorTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(EmbeddingTable, AShardSendsEachDistinctRowOnceAndGetsItsGradientSummed) {
  ModelConfig config;
  config.hidden = 2;
  config.embeddingRows = 10;
  OptimizerConfig sgd;
  auto whole = EmbeddingTable::create(config, 1, 0, sgd, std::make_shared<MemoryCounter>());
  auto shard1 = EmbeddingTable::create(config, 3, 1, sgd, std::make_shared<MemoryCounter>());
  ASSERT_TRUE(whole.ok() && shard1.ok());
  const std::vector<int> ids = {4, 0, 7, 4, 9};
  // Shard 1 of 3 holds rows 1, 4, 7: keys 4 and 7, row 4 once for its two tokens.
  const std::vector<int> keys = heldKeys(ids, 3, 1);
  EXPECT_EQ(keys, (std::vector<int>{4, 7}));
  const std::vector<float> all = (*whole)->gather(ids), mine = (*shard1)->gather(keys);
  ASSERT_EQ(mine.size(), 4u);
  std::vector<float> back(all.size(), 0.0f);
  for (int s = 0; s < 3; ++s) {
    const std::vector<int> held = heldKeys(ids, 3, s);
    scatterRows(ids, held, (*whole)->gather(held).data(), 2, back.data());
  }
  EXPECT_EQ(back, all);
  scatterRows(ids, keys, mine.data(), 2, back.data());
  EXPECT_EQ(back, all);  // shard 1's rows are the whole table's
  // Token gradients 1..10: key 4's is tokens 0 and 3 summed, key 7's token 2's.
  std::vector<float> grads(10);
  for (int i = 0; i < 10; ++i)
    grads[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
  EXPECT_EQ(sumRowsByKey(ids, keys, grads.data(), 2), (std::vector<float>{1 + 7, 2 + 8, 5, 6}));
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

TEST(KeyClustering, GroupsTheSamplesThatShareKeys) {
  // Samples 0 and 2 share keys 1, 2; samples 1 and 3 share 3, 4 (and 3 has a key of its own).
  const std::vector<std::vector<int>> keys = {{1, 2, 1}, {3, 4}, {2, 1}, {4, 3, 9}};
  const std::vector<int> order = clusterSamplesByKey(keys, 2);
  EXPECT_EQ(order, (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(distinctKeysPerGroup(keys, order, 2), (std::vector<int>{2, 3}));
  EXPECT_EQ(distinctKeysPerGroup(keys, {0, 1, 2, 3}, 2), (std::vector<int>{4, 5}));
}

// NestPipe's key-centric sample clustering on the cpu backend: 64 samples of 16 tokens a step
// (16 a micro-batch) drawing keys from 16 topics of a 256-row table.
CpuRunOptions topicModel(int samplesPerMicrobatch = 16) {
  CpuRunOptions options = smallModel();
  options.model.embeddingRows = 256;
  options.model.seq = 16;
  options.model.microbatchSize = samplesPerMicrobatch;
  return options;
}

struct GatherRun {
  std::vector<double> losses;
  std::int64_t gatherBytes = 0;  // stage 0's gathers over the run
};

GatherRun nestpipeGathers(bool clusterKeys, int samples, const test::TempDir& dir) {
  PlanSpec spec = nestpipe(3);
  spec.clusterKeys = clusterKeys;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return {};
  GatherRun out;
  const auto loaded = test::recordedRun(
      dir, (clusterKeys ? "clustered" : "in-order") + std::to_string(samples), 4,
      [&](trace::TraceWriter* writer) {
        auto run = runOnCpuThreads(built->plan, built->graph, topicModel(samples), writer);
        if (run.ok()) out.losses = run->stepLoss;
        return run;
      });
  if (!loaded) return {};
  const trace::OpColumns& ops = loaded->ranks[0].lane(trace::Lane::Collective);
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops.kind[i] == OpKind::A2A && ops.peer[i] == trace::kNoValue)
      out.gatherBytes += ops.bytes[i];
  return out;
}

TEST(NestPipeTraining, ClusteredSamplesGatherFewerRowsAndTrainTheSameStep) {
  test::TempDir dir;
  // 8, 16 and 32 samples a micro-batch: 2, 4 and 8 samples a step of each topic on average.
  for (const auto& [samples, atMost] : {std::pair{8, 0.95}, {16, 0.8}, {32, 0.7}}) {
    const GatherRun inOrder = nestpipeGathers(false, samples, dir);
    const GatherRun clustered = nestpipeGathers(true, samples, dir);
    ASSERT_EQ(inOrder.losses.size(), 3u);
    ASSERT_EQ(clustered.losses.size(), 3u);
    ASSERT_GT(inOrder.gatherBytes, 0);
    std::printf("%d samples a micro-batch: gathers of %lld bytes in order, %lld clustered\n",
                samples, static_cast<long long>(inOrder.gatherBytes),
                static_cast<long long>(clustered.gatherBytes));
    EXPECT_LT(clustered.gatherBytes, atMost * static_cast<double>(inOrder.gatherBytes)) << samples;
    // The same samples make the same step: only which go together changed.
    for (std::size_t s = 0; s < 3; ++s)
      EXPECT_NEAR(clustered.losses[s], inOrder.losses[s], 1e-5 * inOrder.losses[s]) << s;
  }
}

TEST(NestPipeTraining, ClusteredRunsTrainTheUnpipelinedModelOnTheClusteredBatches) {
  PlanSpec spec = nestpipe(3);
  spec.clusterKeys = true;
  auto built = buildPlan(spec);
  ASSERT_TRUE(built.ok()) << built.error();
  CpuRunResult run;
  ReferenceRun ref;
  ASSERT_TRUE(test::trainAgainstReference(*built, topicModel(), run, ref));
  EXPECT_LE(test::maxRelError(run.finalParams, ref.params), 1e-5);
  spec.fetchMb = 0;
  auto refused = buildPlan(spec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("--cluster-keys regroups each step's samples"));
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
