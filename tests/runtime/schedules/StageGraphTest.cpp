// GraphPipe (--stage-graph): a two-tower model as a stage DAG. The towers run side by side, so a
// micro-batch reaches the head after the DAG's depth, not its length, and the step beats the
// same model as a chain; on the cpu backend the DAG trains (the head sums the towers' outputs),
// the same under gpipe's and 1f1b's orders.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "runtime/run/RunPlan.h"
#include "runtime/schedules/StageGraph.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/store/TraceReader.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

constexpr const char* kTwoTowers = "0>1,1>4,2>3,3>4";

TEST(StageGraph, ParsesEdgesAndNamesBadOnes) {
  auto preds = parseStageGraph(kTwoTowers, 5);
  ASSERT_TRUE(preds.ok()) << preds.error();
  EXPECT_EQ((*preds)[4], (std::vector<int>{1, 3}));
  EXPECT_TRUE((*preds)[0].empty() && (*preds)[2].empty());
  EXPECT_EQ(stageGraphText(*preds), kTwoTowers);
  EXPECT_THAT(parseStageGraph("0>1,2-3", 5).error(),
              HasSubstr("expected edges like 0>2,1>2 (\"2-3\")"));
  EXPECT_THAT(parseStageGraph("1>0", 2).error(), HasSubstr("edge 1>0 must go from a lower stage"));
  EXPECT_THAT(parseStageGraph("0>2,1>2,0>2", 3).error(), HasSubstr("appears twice"));
  EXPECT_THAT(parseStageGraph("0>2", 3).error(), HasSubstr("stage 1 leads nowhere"));
}

std::int64_t firstHeadForward(const SimResult& sim) {
  for (const auto& r : sim.records)
    if (r.kind == OpKind::F && r.stage == 4 && r.microbatch == 0) return r.start_ns;
  return -1;
}

TEST(StageGraph, TheDagsDepthNotItsLengthSetsTheFill) {
  const SimResult dag = test::simulateSpec(test::presetSpec("graphpipe"));
  const SimResult chain = test::simulateSpec(test::presetSpec("graphpipe-baseline"));
  // Four layers of 100 µs a stage: the head starts after two stages on the DAG, four on the chain.
  EXPECT_EQ(firstHeadForward(dag), 800'000);
  EXPECT_EQ(firstHeadForward(chain), 1'600'000);
  EXPECT_LT(dag.makespan, chain.makespan);
  for (const char* name : {"gpipe", "1f1b"}) {
    PlanSpec spec = test::presetSpec("graphpipe");
    spec.schedule = name;
    auto built = buildPlan(spec);
    ASSERT_TRUE(built.ok()) << name << ": " << built.error();
    EXPECT_EQ(built->plan.stagePreds[4], (std::vector<int>{1, 3}));
    EXPECT_THAT(built->configJson, HasSubstr(std::string("\"stage_graph\":\"") + kTwoTowers));
  }
  PlanSpec zb = test::presetSpec("graphpipe");
  zb.schedule = "zb-h1";
  EXPECT_THAT(buildPlan(zb).error(), HasSubstr("--stage-graph: runs over gpipe or 1f1b"));
}

RunPlanRequest twoTowerRun(const std::string& schedule) {
  RunPlanRequest r = test::tinyModelRun(Backend::Cpu, 5, 4, 8);
  r.spec.schedule = schedule;
  r.spec.stageGraph = kTwoTowers;
  return r;
}

TEST(StageGraph, TheCpuBackendTrainsTheDagTheSameInEitherOrder) {
  test::TempDir dir;
  auto ofb = runPlan(twoTowerRun("1f1b"), {dir.file("1f1b.sqlite")});
  auto gp = runPlan(twoTowerRun("gpipe"), {dir.file("gpipe.sqlite")});
  ASSERT_TRUE(ofb.ok()) << ofb.error();
  ASSERT_TRUE(gp.ok()) << gp.error();
  ASSERT_EQ(ofb->status, trace::RunStatus::Complete) << ofb->message;
  ASSERT_EQ(gp->status, trace::RunStatus::Complete) << gp->message;
  ASSERT_EQ(ofb->exec->stepLoss.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_NEAR(ofb->exec->stepLoss[i], gp->exec->stepLoss[i],
                1e-6 * std::abs(gp->exec->stepLoss[i]));
  EXPECT_LT(ofb->exec->stepLoss.back(), ofb->exec->stepLoss.front()) << "it learns";
  ASSERT_EQ(ofb->exec->finalParams.size(), gp->exec->finalParams.size());
  for (std::size_t i = 0; i < gp->exec->finalParams.size(); ++i)
    ASSERT_NEAR(ofb->exec->finalParams[i], gp->exec->finalParams[i], 1e-5) << i;
  // Both towers' last stages sent to the head: two receives per forward on rank 4.
  auto loaded = trace::loadRun(*ofb->store, *ofb->runId);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  int headReceives = 0;
  for (OpKind k : loaded->ranks[4].lane(trace::Lane::Recv).kind)
    headReceives += k == OpKind::RECV_F;
  EXPECT_EQ(headReceives, 2 * 4 * 8);
}

TEST(StageGraph, GpusAndProcessesRefuseDagsBeforeWriting) {
  test::TempDir dir;
  RunPlanRequest r = twoTowerRun("1f1b");
  r.backend = Backend::Cuda;
  auto refused = runPlan(r, {dir.file("x.sqlite")});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(),
              HasSubstr("--stage-graph: the cuda backend runs chains of stages only"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.sqlite")));
}

}  // namespace
}  // namespace ps::runtime
