#include "trace/analysis/FigureCoverage.h"

#include <gtest/gtest.h>

#include "tests/trace/TraceBuilder.h"

namespace ps::trace {
namespace {

OpRecord other(int rank, std::int64_t start, std::int64_t end) {
  OpRecord op;
  op.rank = rank;
  op.kind = OpKind::OTHER;
  op.start_ns = start;
  op.end_ns = end;
  op.name = "elementwise_kernel";
  return op;
}

// An imported-looking run: one short step of F/B per rank inside a long timeline of OTHER work.
TEST(FigureCoverage, SaysWhichOpsTheFiguresCoverOnAMostlyOtherTimeline) {
  TraceBatch batch;
  batch.ops.push_back(test::compute(0, OpKind::F, 0, 100'000'000, 101'000'000));
  batch.ops.push_back(test::compute(1, OpKind::F, 0, 101'000'000, 102'000'000));
  batch.ops.push_back(test::compute(1, OpKind::B, 0, 102'000'000, 104'000'000));
  batch.ops.push_back(test::compute(0, OpKind::B, 0, 104'000'000, 106'000'000));
  batch.ops.push_back(test::send(0, 1, 1024, 101'000'000, 101'100'000));
  for (int i = 0; i < 10; ++i)
    batch.ops.push_back(other(i % 2, i * 65'000'000, i * 65'000'000 + 1'000'000));
  const RunTrace run = test::roundTrip(test::simpleHeader(2), batch);
  const RunAnalysis a = analyzeRun(run);
  const FigureCoverage c = figureCoverage(run, a);
  EXPECT_EQ(c.computeOps, 4);
  EXPECT_EQ(c.otherOps, 10);
  EXPECT_EQ(c.transferOps, 1);
  EXPECT_EQ(c.steps, 1);
  EXPECT_EQ(c.stepsSpanNs, 6'000'000);
  EXPECT_EQ(c.timelineSpanNs, 9 * 65'000'000 + 1'000'000);
  const std::string text = coverageText(c, a);
  EXPECT_NE(text.find("figures cover 4 compute ops (F B I W R OPT FILL) in 1 step, 6.000 ms of "
                      "the 586.000 ms timeline"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("10 OTHER ops and 1 transfer are drawn but not counted"), std::string::npos)
      << text;
  // Issue 12 case 11: compute is 6 ms of 16.1 ms busy (rank 0's send extends its F0 by 0.1 ms).
  EXPECT_EQ(c.busy.computeBusyNs, 6'000'000);
  EXPECT_EQ(c.busy.busyNs, 16'100'000);
  EXPECT_TRUE(c.busy.low());
  EXPECT_NE(text.find("\nrecognised compute covers 37.27 % of busy time: not a pipeline trace?"),
            std::string::npos)
      << text;
}

TEST(FigureCoverage, BusyCoverageOfRecordsMatchesThatOfTheLoadedRun) {
  TraceBatch batch;
  batch.ops.push_back(test::compute(0, OpKind::F, 0, 0, 100));
  batch.ops.push_back(other(0, 50, 300));  // overlaps F: 300 busy, 100 of it compute
  batch.ops.push_back(test::compute(1, OpKind::B, 0, 10, 60));
  batch.ops.push_back(test::send(1, 0, 8, 400, 450));
  const RunTrace run = test::roundTrip(test::simpleHeader(2), batch);
  const BusyCoverage fromRun = busyCoverage(run);
  const BusyCoverage fromRecords = busyCoverage(batch.ops);
  EXPECT_EQ(fromRun.computeBusyNs, 150);
  EXPECT_EQ(fromRun.busyNs, 400);
  EXPECT_EQ(fromRecords.computeBusyNs, 150);
  EXPECT_EQ(fromRecords.busyNs, 400);
  EXPECT_NEAR(*fromRun.ratio(), 0.375, 1e-12);
  EXPECT_FALSE(BusyCoverage{}.ratio());
  EXPECT_FALSE(BusyCoverage{}.low());
  EXPECT_EQ(lowCoverageNote(BusyCoverage{90, 100}), "");
}

TEST(FigureCoverage, ARunWithoutComputeOpsSaysNothingIsMeasured) {
  TraceBatch batch;
  batch.ops.push_back(other(0, 0, 10));
  const RunTrace run = test::roundTrip(test::simpleHeader(1), batch);
  const RunAnalysis a = analyzeRun(run);
  const std::string text = coverageText(figureCoverage(run, a), a);
  EXPECT_NE(text.find("no compute ops"), std::string::npos) << text;
  EXPECT_NE(text.find("1 OTHER op"), std::string::npos) << text;
}

TEST(FigureCoverage, ASimulatedRunHasNothingUncounted) {
  TraceBatch batch;
  batch.ops.push_back(test::compute(0, OpKind::F, 0, 0, 10));
  const RunTrace run = test::roundTrip(test::simpleHeader(1), batch);
  const RunAnalysis a = analyzeRun(run);
  const std::string text = coverageText(figureCoverage(run, a), a);
  EXPECT_EQ(text.find("not counted"), std::string::npos) << text;
  EXPECT_NE(text.find("1 compute op "), std::string::npos) << text;
}

}  // namespace
}  // namespace ps::trace
