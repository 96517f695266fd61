// Forward-only (inference) plans on the cpu backend (PipeEdge): the ranks run the schedule's
// forwards only, keep weights but no gradients, optimizer state or stashes, and the last stage
// still reports the loss, which is the training forward's on the same weights and data.

#include <gtest/gtest.h>

#include <set>

#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/store/TraceReader.h"

namespace ps::runtime {
namespace {

RunPlanRequest tinyRun(bool forwardOnly) {
  RunPlanRequest r = test::tinyModelRun(Backend::Cpu, 4, 8, 2);
  r.spec.forwardOnly = forwardOnly;
  return r;
}

TEST(InferenceRun, TheCpuBackendRunsForwardsOnlyWithTheTrainingForwardsLoss) {
  test::TempDir dir;
  auto infer = runPlan(tinyRun(true), {dir.file("infer.sqlite")});
  auto train = runPlan(tinyRun(false), {dir.file("train.sqlite")});
  ASSERT_TRUE(infer.ok()) << infer.error();
  ASSERT_TRUE(train.ok()) << train.error();
  ASSERT_EQ(infer->status, trace::RunStatus::Complete) << infer->message;
  ASSERT_TRUE(infer->exec && train->exec);
  // Both steps written, each with its loss; step 0 runs the same weights on the same data.
  ASSERT_EQ(infer->exec->stepLoss.size(), 2u);
  EXPECT_EQ(infer->exec->stepLoss[0], train->exec->stepLoss[0]);
  // Nothing was updated: the weights are the initial ones, which training moved.
  EXPECT_NE(infer->exec->finalParams, train->exec->finalParams);
  ASSERT_EQ(infer->exec->peakMemory.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r)
    EXPECT_LT(infer->exec->peakMemory[r], train->exec->peakMemory[r])
        << "rank " << r << ": weights only, no gradients, optimizer state or stash";

  auto loaded = trace::loadRun(*infer->store, *infer->runId);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  std::set<OpKind> kinds;
  std::set<int> steps;
  for (const auto& rank : loaded->ranks) {
    const auto& compute = rank.lane(trace::Lane::Compute);
    kinds.insert(compute.kind.begin(), compute.kind.end());
    steps.insert(compute.step.begin(), compute.step.end());
  }
  EXPECT_EQ(kinds, std::set<OpKind>{OpKind::F});
  EXPECT_EQ(steps, (std::set<int>{0, 1}));
  EXPECT_EQ(loaded->info.status, trace::RunStatus::Complete);
}

}  // namespace
}  // namespace ps::runtime
