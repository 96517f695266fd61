// PipeDream without its weight stash (--weight-versions): TiMePReSt and pipelined backprop
// (latest: every pass on the live weights) and XPipe (predict: F on weights predicted from the
// optimizer's moments). Adam's prediction is exact where the gradient does not change; on the
// cpu backend each trains the same model and seed to within a stated margin of PipeDream's loss
// with less memory on the rank that stashes most.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/model/Adam.h"
#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(AsyncWeights, AdamPredictsTheWeightsOfStepsWithTheSameGradient) {
  OptimizerConfig config;
  config.kind = OptimizerKind::Adam;
  config.lr = 0.01f;
  auto counter = std::make_shared<MemoryCounter>();
  Adam adam(config, 3, counter);
  std::vector<float> w{1.0f, -2.0f, 0.5f};
  const std::vector<float> g{0.3f, -0.1f, 2.0f};
  adam.step(w.data(), g.data());
  std::vector<float> predicted(3);
  adam.predict(predicted, w, 3);
  for (int k = 0; k < 3; ++k)
    adam.step(w.data(), g.data());
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(predicted[static_cast<std::size_t>(i)], w[static_cast<std::size_t>(i)], 1e-5);
  EXPECT_NE(predicted[0], 1.0f - 0.01f) << "the prediction moved past the first step";
}

TEST(AsyncWeights, OnlyPipeDreamsStashIsReplaced) {
  PlanSpec spec;
  spec.schedule = "1f1b";
  spec.weightVersions = "latest";
  EXPECT_THAT(buildPlan(spec).error(),
              HasSubstr("--weight-versions latest: replaces PipeDream's weight stash"));
  spec.schedule = "pipedream";
  spec.weightVersions = "newest";
  EXPECT_THAT(buildPlan(spec).error(), HasSubstr("expected stash, latest, predict, ema or blend"));
  spec.weightVersions = "predict";
  auto built = buildPlan(spec);
  ASSERT_TRUE(built.ok()) << built.error();
  EXPECT_EQ(built->plan.versioning, WeightVersioning::Predicted);
  EXPECT_THAT(built->configJson, HasSubstr("\"weight_versions\":\"predict\""));
}

RunPlanRequest pipeDreamRun(const std::string& versions) {
  RunPlanRequest r = test::tinyModelRun(Backend::Cpu, 4, 4, 12);
  r.spec.schedule = "pipedream";
  r.spec.weightVersions = versions;
  r.exec.optimizer.kind = OptimizerKind::Adam;
  r.exec.optimizer.lr = 0.01f;
  return r;
}

CpuRunResult trained(const std::string& versions, const test::TempDir& dir) {
  auto run = runPlan(pipeDreamRun(versions), {dir.file(versions + ".sqlite")});
  EXPECT_TRUE(run.ok()) << run.error();
  if (!run.ok() || !run->exec) return {};
  EXPECT_EQ(run->status, trace::RunStatus::Complete) << run->message;
  return *run->exec;
}

// The margin: each variant's mean loss over the last four steps within 10 % of PipeDream's.
double lateLoss(const CpuRunResult& r) {
  double sum = 0;
  for (std::size_t i = r.stepLoss.size() - 4; i < r.stepLoss.size(); ++i)
    sum += r.stepLoss[i];
  return sum / 4;
}

TEST(AsyncWeights, WithoutTheStashTheLossStaysNearPipeDreamsInLessMemory) {
  test::TempDir dir;
  const CpuRunResult stash = trained("stash", dir);
  const CpuRunResult latest = trained("latest", dir);
  const CpuRunResult predict = trained("predict", dir);
  for (const CpuRunResult* r : {&stash, &latest, &predict}) {
    ASSERT_EQ(r->stepLoss.size(), 12u);
    EXPECT_LT(lateLoss(*r), r->stepLoss.front()) << "it learns";
    ASSERT_EQ(r->peakMemory.size(), 4u);
  }
  EXPECT_EQ(latest.stepLoss.front(), stash.stepLoss.front()) << "step 0 runs on the same weights";
  EXPECT_NEAR(lateLoss(latest), lateLoss(stash), 0.1 * lateLoss(stash));
  EXPECT_NEAR(lateLoss(predict), lateLoss(stash), 0.1 * lateLoss(stash));
  EXPECT_NE(predict.finalParams, latest.finalParams) << "the prediction changed the forwards";
  // Rank 0 keeps up to p versions under the stash; without it none, with XPipe one copy at a time.
  EXPECT_LT(latest.peakMemory[0], stash.peakMemory[0]);
  EXPECT_LT(predict.peakMemory[0], stash.peakMemory[0]);
  EXPECT_LT(latest.peakMemory[0], predict.peakMemory[0]);
}

}  // namespace
}  // namespace ps::runtime
