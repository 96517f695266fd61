// Issue 35's XPipe row: weight prediction was reported to diverge at one micro-batch a step with
// lr 0.01 (late loss 5.13 against 1.07 with PipeDream's stash). Not reproduced (1000 steps: 0.108
// predicted against 0.115 stashed); this keeps it so: over 100 steps the predicted weights'
// late loss stays within a fifth of the stash's, and both fall.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numeric>

#include "runtime/run/PlanBuilder.h"
#include "tests/runtime/ExecutorTestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"

namespace ps::runtime {
namespace {

// The mean loss of the last 10 of 100 steps of the xpipe preset at m 1, lr 0.01, with `versions`.
double lateLoss(const std::string& versions) {
  PlanSpec spec = test::presetSpec("xpipe");
  spec.microbatches = 1;
  spec.steps = 100;
  spec.weightVersions = versions;
  const std::vector<double> losses = test::smallModelLosses(spec, BlockType::Mlp);
  if (losses.size() < 10) return NAN;
  EXPECT_LT(losses.back(), losses.front()) << versions;
  return std::accumulate(losses.end() - 10, losses.end(), 0.0) / 10;
}

TEST(XPipeStability, PredictedWeightsTrainAsWellAsStashedOnesAtOneMicroBatchAStep) {
  const double predicted = lateLoss("predict"), stashed = lateLoss("stash");
  std::cout << "late loss: predicted " << predicted << ", stashed " << stashed << "\n";
  EXPECT_LT(predicted, 1.2 * stashed);
}

}  // namespace
}  // namespace ps::runtime
