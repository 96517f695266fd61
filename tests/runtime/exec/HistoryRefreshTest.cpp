// GNNPipe's staleness bound (issue 35 item 1, --history-refresh K): before every K-th step the
// stages refresh their layers' historical embeddings over the whole graph on the current weights.
// With K = 1 (staleness 0) each step's forward is the full graph's: a chunk's loss no longer
// depends on the order the chunks run in, the pipeline equals the unpipelined model refreshed the
// same way, and the losses differ from the stale history's (the staleness shows in the loss).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/StageModel.h"
#include "runtime/run/BackendRefusals.h"
#include "runtime/run/PlanBuilder.h"
#include "tests/runtime/ExecutorTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

constexpr int kChunks = 4;

ModelConfig graphModel() {
  ModelConfig c = test::smallAdamRun(BlockType::Gnn, 11).model;
  c.layers = 3;
  return c;
}

// Each chunk's loss after one step's forwards in `order`, with or without a refresh first.
std::vector<double> chunkLosses(const std::vector<int>& order, bool refresh) {
  StageOptions options;
  options.microbatchesPerStep = kChunks;
  auto model = StageModel::create(graphModel(), options);
  EXPECT_TRUE(model.ok()) << model.error();
  if (!model.ok()) return {};
  // A step already taken: the history holds its forwards, as a stale cache does.
  for (int c = 0; c < kChunks; ++c)
    EXPECT_TRUE((*model)->forward({0, c}, nullptr, nullptr).ok());
  for (int c = 0; c < kChunks; ++c)
    EXPECT_TRUE((*model)->backward({0, c}, nullptr, nullptr).ok());
  (*model)->optimizerStep();
  if (refresh) {
    EXPECT_TRUE((*model)->refreshHistory(1, nullptr, nullptr).ok());
  }
  for (int c : order)
    EXPECT_TRUE((*model)->forward({1, c}, nullptr, nullptr).ok());
  std::vector<double> losses;
  for (int c = 0; c < kChunks; ++c)
    losses.push_back((*model)->loss({1, c}).value_or(NAN));
  return losses;
}

TEST(HistoryRefresh, AfterARefreshNoChunkReadsAStaleNeighbour) {
  const std::vector<int> forwards = {0, 1, 2, 3}, backwards = {3, 2, 1, 0};
  const auto fresh = chunkLosses(forwards, true), freshReversed = chunkLosses(backwards, true);
  const auto stale = chunkLosses(forwards, false), staleReversed = chunkLosses(backwards, false);
  ASSERT_EQ(fresh.size(), static_cast<std::size_t>(kChunks));
  double staleGap = 0;
  for (int c = 0; c < kChunks; ++c) {
    EXPECT_NEAR(fresh[c], freshReversed[c], 1e-6 * std::fabs(fresh[c])) << "chunk " << c;
    staleGap = std::max(staleGap, std::fabs(stale[c] - staleReversed[c]));
  }
  // Without the refresh the order decides which neighbours are a step old.
  EXPECT_GT(staleGap, 1e-5);
}

PlanSpec refreshed(const char* schedule, int chunks, int refresh) {
  PlanSpec spec;
  spec.schedule = schedule;
  spec.stages = 2;
  spec.microbatches = kChunks;
  spec.chunks = chunks;
  spec.layers = 2 * chunks;
  spec.steps = 4;
  spec.historyRefresh = refresh;
  return spec;
}

CpuRunOptions gnnOptions() {
  CpuRunOptions options = test::smallAdamRun(BlockType::Gnn, 11);
  options.model = graphModel();
  return options;
}

TEST(HistoryRefresh, StalenessZeroTrainsAsTheUnpipelinedModelRefreshedAlike) {
  std::vector<double> everyStep;
  for (const auto& [schedule, chunks] : {std::pair{"gpipe", 1}, std::pair{"1f1b", 1},
                                         std::pair{"zb-h1", 1}, std::pair{"interleaved-1f1b", 2}}) {
    SCOPED_TRACE(schedule);
    auto built = buildPlan(refreshed(schedule, chunks, 1));
    ASSERT_TRUE(built.ok()) << built.error();
    CpuRunResult run;
    ReferenceRun ref;
    ASSERT_TRUE(test::trainAgainstReference(*built, gnnOptions(), run, ref));
    EXPECT_LE(test::maxRelError(run.finalParams, ref.params), 1e-5);
    if (chunks == 1) everyStep = {run.stepLoss.begin(), run.stepLoss.end()};
  }
  // Every other step, and never: the staleness shows in the loss.
  for (int refresh : {2, 0}) {
    SCOPED_TRACE("refresh " + std::to_string(refresh));
    auto built = buildPlan(refreshed("1f1b", 1, refresh));
    ASSERT_TRUE(built.ok()) << built.error();
    CpuRunResult run;
    ReferenceRun ref;
    ASSERT_TRUE(test::trainAgainstReference(*built, gnnOptions(), run, ref));
    ASSERT_EQ(run.stepLoss.size(), everyStep.size());
    // Step 0 reads an empty history unless refreshed; a refresh every other step skips step 1.
    EXPECT_GT(std::fabs(run.stepLoss[refresh == 2 ? 1 : 0] - everyStep[refresh == 2 ? 1 : 0]),
              1e-5);
    if (refresh == 2) {
      EXPECT_NEAR(run.stepLoss[0], everyStep[0], 1e-6 * everyStep[0]);
    }
  }
}

TEST(HistoryRefresh, IsRecordedAsFillWorkAndItsTransfers) {
  auto built = buildPlan(refreshed("1f1b", 1, 2));
  ASSERT_TRUE(built.ok());
  EXPECT_THAT(built->configJson, HasSubstr("\"history_refresh\":2"));
  test::TempDir dir;
  const auto loaded = test::recordedRun(dir, "cpu", 2, [&](trace::TraceWriter* writer) {
    return runOnCpuThreads(built->plan, built->graph, gnnOptions(), writer);
  });
  ASSERT_TRUE(loaded.has_value());
  // Steps 0 and 2 of 4 refresh: one FILL per stage each, and stage 0 sends every node's output.
  const auto nodes = static_cast<std::int64_t>(kChunks) * graphModel().rows();
  for (int rank = 0; rank < 2; ++rank) {
    const trace::OpColumns& ops = loaded->ranks[rank].lane(trace::Lane::Compute);
    std::vector<int> fillSteps;
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops.kind[i] == OpKind::FILL) {
        fillSteps.push_back(ops.step[i]);
        const std::string* name = loaded->nameOf(ops.name[i]);
        EXPECT_TRUE(name && *name == "history refresh");
      }
    EXPECT_EQ(fillSteps, (std::vector<int>{0, 2})) << "rank " << rank;
  }
  const trace::OpColumns& sends = loaded->ranks[0].lane(trace::Lane::Send);
  int refreshSends = 0;
  for (std::size_t i = 0; i < sends.size(); ++i)
    if (sends.bytes[i] == nodes * graphModel().hidden * 4) ++refreshSends;
  EXPECT_EQ(refreshSends, 2);
}

TEST(HistoryRefresh, BadInputIsNamed) {
  auto async = buildPlan([] {
    PlanSpec spec = refreshed("pipedream", 1, 1);
    spec.steps = 1;
    return spec;
  }());
  ASSERT_FALSE(async.ok());
  EXPECT_THAT(async.error(), HasSubstr("--history-refresh 1: the refresh runs between steps of a "
                                       "synchronous training schedule (not pipedream)"));
  auto built = buildPlan(refreshed("1f1b", 1, 3));
  ASSERT_TRUE(built.ok());
  ModelConfig mlp = graphModel();
  mlp.block = BlockType::Mlp;
  const Status refused = checkModelFeatures(built->plan, mlp);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("--history-refresh 3: refreshes a graph model's"));
}

}  // namespace
}  // namespace ps::runtime
