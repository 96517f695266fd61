// Loading trusts the rows, not the header, and keeps every number in range (issue 12): times at
// the int64 extremes, a header that claims 2^31-1 ranks, bytes that would overflow a sum. The dev
// build runs with UBSan halt_on_error=1 (tests/sanitizer), so signed overflow fails these tests.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/export/ChromeTraceExport.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {
namespace {

using test::compute;
using test::TempDir;
using ::testing::Contains;
using ::testing::HasSubstr;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

using test::rawSql;

// Two ranks, one step: rank 0 busy [0,10) and [20,30), rank 1 busy [5,25); span 30, so both
// ranks are 1/3 bubble.
TraceBatch thirdBubble() {
  TraceBatch b;
  b.ops = {compute(0, OpKind::F, 0, 0, 10), compute(0, OpKind::B, 0, 20, 30),
           compute(1, OpKind::F, 0, 5, 25)};
  return b;
}

TEST(LoadValidation, Int64ExtremeTimesAreDroppedWithAWarning) {
  TempDir dir;
  const std::string path = dir.file("extreme.sqlite");
  const auto id = test::writeRun(path, test::simpleHeader(2), thirdBubble());
  const std::string run = std::to_string(id);
  const std::string mn = std::to_string(kMin), mx = std::to_string(kMax);
  rawSql(path,
         "INSERT INTO op(run_id, rank, kind, stage, microbatch, step, start_ns, end_ns) "
         "VALUES(" +
             run + ", 0, 'F', 0, 1, 0, " + mn + ", " + mx + "), (" + run + ", 1, 'B', 1, 1, 0, " +
             mx + ", " + mx + "), (" + run + ", 1, 'W', 1, 1, 0, " + mn + ", " + mn + "), (" + run +
             ", 0, 'F', 0, 2, 0, 0, " + mx +
             ");"
             "INSERT INTO op(run_id, rank, kind, stage, microbatch, step, start_ns, end_ns, "
             "peer_rank, bytes) VALUES(" +
             run + ", 0, 'SEND_F', 0, 0, 0, " + mn + ", " + mx + ", 1, " + mx +
             ");"
             "INSERT INTO memory(run_id, rank, t_ns, bytes) VALUES(" +
             run + ", 0, " + mn + ", 5), (" + run + ", 0, " + mx + ", 7), (" + run +
             ", 0, 3, 100);");
  auto loaded = loadRunFromFile(path, std::nullopt);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->opCount(), 3u) << "only the in-range ops are kept";
  EXPECT_THAT(loaded->warnings,
              Contains(path + ": run " + run +
                       ": 5 op(s) start or end outside ±4503599627370496 ns (±2^52, about 52 "
                       "days) of the run's start: not loaded"));
  EXPECT_THAT(loaded->warnings,
              Contains(path + ": run " + run +
                       ": 2 memory sample(s) outside ±4503599627370496 ns (±2^52, about 52 "
                       "days) of the run's start: not loaded"));
  ASSERT_EQ(loaded->ranks[0].memory.size(), 1u);

  const RunAnalysis a = analyzeRun(*loaded);
  ASSERT_TRUE(a.bubble_ratio.has_value());
  EXPECT_NEAR(*a.bubble_ratio, 1.0 / 3.0, 1e-12) << "the real ops give the real bubble";
  EXPECT_EQ(a.ranks[0].busy_ns, 20);
  std::ostringstream out;
  const auto stats = writeChromeTrace(*loaded, out);
  EXPECT_EQ(stats.events, 3);
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("-")));
}

TEST(LoadValidation, EndBeforeStartIsClampedAndCounted) {
  TempDir dir;
  const std::string path = dir.file("backwards.sqlite");
  const auto id = test::writeRun(path, test::simpleHeader(1), {});
  const std::string run = std::to_string(id);
  rawSql(path,
         "INSERT INTO op(run_id, rank, kind, stage, microbatch, step, start_ns, end_ns) "
         "VALUES(" +
             run + ", 0, 'F', 0, 0, 0, 100, 40), (" + run + ", 0, 'F', 0, 1, 0, 200, 300)");
  auto loaded = loadRunFromFile(path, std::nullopt);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  ASSERT_EQ(loaded->opCount(), 2u);
  EXPECT_EQ(loaded->ranks[0].lane(Lane::Compute).end[0], 100);
  EXPECT_THAT(loaded->warnings, Contains(path + ": run " + run +
                                         ": 1 op(s) end before they start: end set to start"));
}

TEST(LoadValidation, OutOfRangeStepsAndIdsAreNotTruncated) {
  TempDir dir;
  const std::string path = dir.file("wide.sqlite");
  const auto id = test::writeRun(path, test::simpleHeader(2), thirdBubble());
  const std::string run = std::to_string(id);
  // step 2^32 would truncate to step 0 and join its span; stage/peer 2^32 to 0.
  rawSql(path,
         "INSERT INTO op(run_id, rank, kind, stage, microbatch, step, start_ns, end_ns, "
         "peer_rank) VALUES(" +
             run + ", 0, 'F', 0, 0, 4294967296, 1000, 2000, NULL), (" + run +
             ", 1, 'F', 4294967296, -7, 0, 5, 6, 4294967296)");
  auto loaded = loadRunFromFile(path, std::nullopt);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_THAT(
      loaded->warnings,
      Contains(path + ": run " + run + ": 1 op(s) with a step outside 0..2147483647: not loaded"));
  EXPECT_EQ(loaded->opCount(), 4u);
  const auto& lane = loaded->ranks[1].lane(Lane::Compute);
  ASSERT_EQ(lane.size(), 2u);
  EXPECT_EQ(lane.stage[1], kNoValue);
  EXPECT_EQ(lane.microbatch[1], kNoValue);
  EXPECT_EQ(lane.peer[1], kNoValue);
  const RunAnalysis a = analyzeRun(*loaded);
  EXPECT_EQ(a.steps.size(), 1u);
  EXPECT_EQ(a.step_time_ns, 30);
}

TEST(LoadValidation, AnalysisAndExportSaturateOnUnvalidatedRuns) {
  // A RunTrace built in memory (not through the loader) with the extremes: sums saturate.
  RunTrace run;
  run.ranks.resize(2);
  run.ranks[0].info.rank = 0;
  run.ranks[1].info.rank = 1;
  auto& c0 = run.ranks[0].lane(Lane::Compute);
  c0.push(kMin, kMax, OpKind::F, 0, 0, 0, kNoValue, kNoValue, kNoValue);
  c0.push(kMax - 1, kMax, OpKind::B, 0, 0, 1, kNoValue, kNoValue, kNoValue);
  c0.push(kMax, kMax, OpKind::B, 0, 0, 2, kNoValue, kNoValue, kNoValue);
  auto& c1 = run.ranks[1].lane(Lane::Compute);
  c1.push(kMin, kMin + 1, OpKind::F, 1, 0, 0, kNoValue, kNoValue, kNoValue);
  c1.push(kMin + 5, 0, OpKind::F, 1, 0, 1, kNoValue, kNoValue, kNoValue);
  c1.push(1, kMax, OpKind::F, 1, 0, 2, kNoValue, kNoValue, kNoValue);
  auto& s0 = run.ranks[0].lane(Lane::Send);
  s0.push(kMin, kMax, OpKind::SEND_F, 0, 0, 0, 1, kMax, kNoValue);
  s0.push(kMin, kMax, OpKind::SEND_F, 0, 1, 0, 1, kMax, kNoValue);
  auto& r1 = run.ranks[1].lane(Lane::Recv);
  r1.push(kMin, kMax, OpKind::RECV_F, 1, 0, 0, 0, kMax, kNoValue);
  run.ranks[0].memory.t = {kMin, kMax};
  run.ranks[0].memory.bytes = {kMax, kMin};

  const RunAnalysis a = analyzeRun(run);
  ASSERT_EQ(a.links.size(), 1u);
  EXPECT_EQ(a.links[0].bytes, kMax) << "saturated, not wrapped";
  EXPECT_EQ(a.links[0].busy_ns, kMax);
  for (const auto& r : a.ranks) {
    EXPECT_GE(r.busy_ns, 0);
    ASSERT_TRUE(r.bubble_ratio.has_value());
    EXPECT_TRUE(std::isfinite(*r.bubble_ratio));
  }
  for (const auto& s : a.steps)
    EXPECT_GE(s.span_ns(), 0);
  std::ostringstream out;
  const auto stats = writeChromeTrace(run, out);
  EXPECT_EQ(stats.events, 9);
  EXPECT_EQ(stats.flows, 1);
}

TEST(LoadValidation, AHeaderClaimingTwoBillionRanksLoadsTheTwoThatHoldData) {
  TempDir dir;
  const std::string path = dir.file("claims.sqlite");
  const auto id = test::writeRun(path, test::simpleHeader(2), thirdBubble());
  rawSql(path, "UPDATE run SET num_ranks=2147483647");
  const auto t0 = std::chrono::steady_clock::now();
  auto loaded = loadRunFromFile(path, std::nullopt);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const RunAnalysis a = analyzeRun(*loaded);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(loaded->ranks.size(), 2u);
  EXPECT_EQ(loaded->info.num_ranks, 2);
  EXPECT_THAT(loaded->warnings,
              Contains(path + ": run " + std::to_string(id) +
                       ": the run says 2147483647 ranks but its ops, rank rows and memory name 2: "
                       "2 loaded"));
  ASSERT_TRUE(a.bubble_ratio.has_value());
  EXPECT_NEAR(*a.bubble_ratio, 1.0 / 3.0, 1e-12);
  EXPECT_EQ(a.ranks.size(), 2u);
  EXPECT_LT(ms, 2000) << "load + analysis of three ops";
}

TEST(LoadValidation, HeaderWithFewerRanksThanTheDataUsesTheData) {
  TempDir dir;
  const std::string path = dir.file("fewer.sqlite");
  const auto id = test::writeRun(path, test::simpleHeader(2), thirdBubble());
  rawSql(path, "UPDATE run SET num_ranks=1");
  auto loaded = loadRunFromFile(path, std::nullopt);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->ranks.size(), 2u);
  EXPECT_EQ(loaded->info.num_ranks, 2);
  EXPECT_THAT(loaded->warnings,
              Contains(path + ": run " + std::to_string(id) +
                       ": the run says 1 rank but its ops, rank rows and memory name 2: "
                       "2 loaded"));
}

TEST(LoadValidation, AnEmptyRunKeepsItsHeaderRanksWithoutAllocatingThem) {
  // A run that has just begun (no ops yet, rank rows written): its ranks come from the rows.
  TempDir dir;
  const std::string path = dir.file("begun.sqlite");
  test::writeRun(path, test::simpleHeader(4), {});
  auto loaded = loadRunFromFile(path, std::nullopt);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->ranks.size(), 4u);
  EXPECT_TRUE(loaded->warnings.empty());
}

TEST(LoadValidation, HugeHeaderCountsAreClampedIntoInt) {
  TempDir dir;
  const std::string path = dir.file("wideheader.sqlite");
  test::writeRun(path, test::simpleHeader(2), thirdBubble());
  rawSql(path,
         "UPDATE run SET num_ranks=9223372036854775807, num_stages=-9223372036854775808, "
         "num_microbatches=4294967298");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  ASSERT_TRUE(store.ok()) << store.error();
  auto info = store->latestRun();
  ASSERT_TRUE(info.ok()) << info.error();
  EXPECT_EQ(info->num_ranks, std::numeric_limits<int>::max());
  EXPECT_EQ(info->num_stages, std::numeric_limits<int>::min());
  EXPECT_EQ(info->num_microbatches, std::numeric_limits<int>::max());
  auto loaded = loadRun(*store, info->id);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->ranks.size(), 2u);
}

}  // namespace
}  // namespace ps::trace
