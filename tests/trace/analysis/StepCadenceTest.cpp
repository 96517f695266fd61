// The step cadence (issue 34 item 8): the median time from one step's start to the next's. Where
// steps begin far apart (work not counted as compute between them), the report gives it beside
// the step time and says which window the step time and the steady bubble measure.

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tests/trace/TraceBuilder.h"
#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::trace {
namespace {

using test::compute;

// Three steps of F then B on two ranks, each 100 ns of compute, beginning `every` ns apart.
RunTrace stepsEvery(std::int64_t every, std::optional<int> microbatches = std::nullopt) {
  TraceBatch b;
  for (int step = 0; step < 3; ++step) {
    const std::int64_t t = step * every;
    b.ops.push_back(compute(0, OpKind::F, 0, t, t + 40, step));
    b.ops.push_back(compute(0, OpKind::B, 0, t + 60, t + 100, step));
    b.ops.push_back(compute(1, OpKind::F, 0, t + 10, t + 50, step));
    b.ops.push_back(compute(1, OpKind::B, 0, t + 50, t + 90, step));
  }
  auto header = test::simpleHeader(2);
  header.info.num_microbatches = microbatches;
  return test::roundTrip(header, b);
}

TEST(StepCadence, StepsFarApartGiveTheirCadenceAndTheReportSaysWhichWindowIsWhich) {
  const RunAnalysis a = analyzeRun(stepsEvery(1000));
  EXPECT_EQ(a.step_time_ns, 100);
  EXPECT_EQ(a.step_cadence_ns, 1000);
  const std::string text = reportText(a);
  EXPECT_NE(text.find("step cadence   1.000 µs"), std::string::npos) << text;
  EXPECT_NE(text.find("(from step start to step start"), std::string::npos) << text;
}

TEST(StepCadence, BackToBackStepsHaveTheirSpanAsCadenceAndNoExtraLines) {
  const RunAnalysis a = analyzeRun(stepsEvery(100));
  EXPECT_EQ(a.step_cadence_ns, 100);
  const std::string text = reportText(a);
  EXPECT_EQ(text.find("step cadence"), std::string::npos) << text;
  EXPECT_EQ(text.find("from step start"), std::string::npos) << text;
  EXPECT_FALSE(analyzeRun(test::roundTrip(test::simpleHeader(1), TraceBatch{})).step_cadence_ns);
}

// Issue 35: asynchronous schedules overlap their steps (FPDeep's span 4.5 ms, a step every
// 2.4 ms); the report gave the span alone and a throughput from it. Now the cadence is the rate.
TEST(StepCadence, OverlappingStepsGiveTheirCadenceAndThroughputFromIt) {
  // Each step spans 100 ns, one every 50 ns, 4 micro-batches a step.
  const RunAnalysis a = analyzeRun(stepsEvery(50, 4));
  EXPECT_EQ(a.step_time_ns, 100);
  EXPECT_EQ(a.step_cadence_ns, 50);
  const std::string text = reportText(a);
  EXPECT_NE(text.find("step time      100 ns"), std::string::npos) << text;
  EXPECT_NE(text.find("step cadence   50 ns  (steps overlap"), std::string::npos) << text;
  // 4 micro-batches every 50 ns: 8e7 a second, not the span's 4e7.
  EXPECT_NE(text.find("throughput     80000000.0 micro-batches/s  (from the cadence)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace ps::trace
