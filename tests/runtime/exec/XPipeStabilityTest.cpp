// Issue 35's XPipe row: weight prediction was reported to diverge at one micro-batch a step with
// lr 0.01 (late loss 5.13 against 1.07 with PipeDream's stash). Not reproduced (1000 steps: 0.108
// predicted against 0.115 stashed); this keeps it so: over 100 steps the predicted weights'
// late loss stays within a fifth of the stash's, and both fall.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numeric>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/run/PlanBuilder.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

// The mean loss of the last 10 of 100 steps of the xpipe preset at m 1, lr 0.01, with `versions`.
double lateLoss(const std::string& versions) {
  PlanSpec spec = test::presetSpec("xpipe");
  spec.microbatches = 1;
  spec.steps = 100;
  spec.weightVersions = versions;
  auto built = buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return NAN;
  CpuRunOptions options;
  options.model.hidden = 16;
  options.model.seq = 4;
  options.model.microbatchSize = 4;
  options.optimizer.kind = OptimizerKind::Adam;
  options.optimizer.lr = 0.01f;
  auto run = runOnCpuThreads(built->plan, built->graph, options, nullptr);
  EXPECT_TRUE(run.ok()) << run.error();
  if (!run.ok() || run->stepLoss.size() < 10) return NAN;
  EXPECT_LT(run->stepLoss.back(), run->stepLoss.front()) << versions;
  return std::accumulate(run->stepLoss.end() - 10, run->stepLoss.end(), 0.0) / 10;
}

TEST(XPipeStability, PredictedWeightsTrainAsWellAsStashedOnesAtOneMicroBatchAStep) {
  const double predicted = lateLoss("predict"), stashed = lateLoss("stash");
  std::cout << "late loss: predicted " << predicted << ", stashed " << stashed << "\n";
  EXPECT_LT(predicted, 1.2 * stashed);
}

}  // namespace
}  // namespace ps::runtime
