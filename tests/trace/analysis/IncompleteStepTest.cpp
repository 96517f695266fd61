// A run that did not complete (its writer killed, cancelled or failed) can end inside a step: the
// step figures leave that partial last step out, and the report says so (issue 30 item 6).

#include <gtest/gtest.h>

#include <string>

#include "tests/trace/TraceBuilder.h"
#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::trace {
namespace {

using test::compute;

// Three steps of 100 ns on two ranks (4 compute ops each); the third was cut short after one op
// (a writer killed mid-step): its span is 10 ns.
RunTrace runEndingInsideAStep(RunStatus status) {
  TraceBatch b;
  for (int step = 0; step < 2; ++step) {
    const std::int64_t t = step * 1000;
    b.ops.push_back(compute(0, OpKind::F, 0, t, t + 40, step));
    b.ops.push_back(compute(0, OpKind::B, 0, t + 60, t + 100, step));
    b.ops.push_back(compute(1, OpKind::F, 0, t + 10, t + 50, step));
    b.ops.push_back(compute(1, OpKind::B, 0, t + 50, t + 90, step));
  }
  b.ops.push_back(compute(0, OpKind::F, 0, 2000, 2010, 2));
  RunTrace run = test::roundTrip(test::simpleHeader(2), b);
  run.info.status = status;
  return run;
}

TEST(IncompleteStep, APartialLastStepOfAnUnfinishedRunIsLeftOut) {
  for (const RunStatus status : {RunStatus::Running, RunStatus::Failed, RunStatus::Cancelled}) {
    SCOPED_TRACE(std::string(runStatusName(status)));
    const RunAnalysis a = analyzeRun(runEndingInsideAStep(status));
    ASSERT_EQ(a.steps.size(), 2u);
    EXPECT_EQ(a.step_time_ns, 100);
    ASSERT_TRUE(a.incomplete_last_step.has_value());
    EXPECT_EQ(a.incomplete_last_step->step, 2);
    EXPECT_EQ(a.incomplete_last_step->compute_ops, 1);
    EXPECT_EQ(a.incomplete_last_step->fewest_before, 4);
    const std::string text = reportText(a);
    EXPECT_NE(text.find("steps 2"), std::string::npos) << text;
    EXPECT_NE(text.find("step 2 left out: incomplete (1 compute op of at least 4"),
              std::string::npos)
        << text;
    EXPECT_NE(reportJson(a).find("\"incomplete_last_step\": {"), std::string::npos);
  }
}

TEST(IncompleteStep, ACompleteRunKeepsEveryStep) {
  const RunAnalysis a = analyzeRun(runEndingInsideAStep(RunStatus::Complete));
  ASSERT_EQ(a.steps.size(), 3u);
  EXPECT_EQ(a.step_time_ns, (100 + 100 + 10) / 3);
  EXPECT_FALSE(a.incomplete_last_step.has_value());
  EXPECT_EQ(reportText(a).find("left out"), std::string::npos);
}

TEST(IncompleteStep, AFullLastStepOfAnUnfinishedRunIsKept) {
  TraceBatch b;
  for (int step = 0; step < 3; ++step)
    b.ops.push_back(compute(0, OpKind::F, 0, step * 1000, step * 1000 + 50, step));
  RunTrace run = test::roundTrip(test::simpleHeader(1), b);
  run.info.status = RunStatus::Failed;
  const RunAnalysis a = analyzeRun(run);
  EXPECT_EQ(a.steps.size(), 3u);
  EXPECT_FALSE(a.incomplete_last_step.has_value());
}

}  // namespace
}  // namespace ps::trace
