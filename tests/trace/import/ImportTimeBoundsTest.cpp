// Extreme timestamps (issue 30, item 9): the import shifted times with plain int64 arithmetic,
// so a Kineto "ts" or an nsys NVTX row near +-2^63 wrapped into ops that end before they start
// ("3 ops" in the summary, 1 in the run). Now such a file is refused, naming the file and the
// event; every shift is checked.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/FixtureSpec.h"
#include "tests/trace/import/NsysFixture.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/import/TimeBounds.h"

namespace ps::trace::import {
namespace {

using testing::FixtureEvent;
using testing::FixtureEventKind;
using testing::FixtureRank;
using ::testing::HasSubstr;

Result<ImportedRun> importFiles(const std::string& format, const std::vector<std::string>& files) {
  auto traces = readTraceFiles(format, files);
  if (!traces) return std::move(traces).takeError();
  ImportOptions options;
  options.format = format;
  return assembleImport(std::move(*traces), options);
}

void expectNoBackwardOps(const ImportedRun& run) {
  for (const auto& op : run.ops) {
    EXPECT_LE(op.start_ns, op.end_ns) << op.name.value_or("");
    EXPECT_GE(op.start_ns, 0) << op.name.value_or("");
  }
}

std::string kinetoWith(const std::string& extraEvent) {
  return R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "PP:0F0", "pid": 1, "tid": 2, "ts": 100, "dur": 50},
    {"ph": "X", "cat": "user_annotation", "name": "PP:0B0", "pid": 1, "tid": 2, "ts": 200, "dur": 80})" +
         extraEvent + "\n]}";
}

TEST(ImportTimeBounds, KinetoHugeTimestampIsRefusedNamingFileAndEvent) {
  test::TempDir dir;
  const std::string path = dir.file("huge.json");
  // 9.2e15 us = 9.2e18 ns, just under 2^63: parses, but the import's shifts wrapped.
  test::writeFile(path, kinetoWith(R"(,
    {"ph": "X", "cat": "user_annotation", "name": "PP:0F1", "pid": 1, "tid": 2, "ts": 9223372036854775, "dur": 10})"));
  auto run = importFiles("kineto", {path});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.error(), HasSubstr(path + ": event \"PP:0F1\" at 9223372036854775000 ns"));
  EXPECT_THAT(run.error(), HasSubstr("a corrupt timestamp?"));
}

TEST(ImportTimeBounds, KinetoNegativeExtremeIsRefusedToo) {
  test::TempDir dir;
  const std::string path = dir.file("negative.json");
  test::writeFile(path, kinetoWith(R"(,
    {"ph": "X", "cat": "user_annotation", "name": "PP:0F1", "pid": 1, "tid": 2, "ts": -9223372036854775.808, "dur": 10})"));
  auto run = importFiles("kineto", {path});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.error(), HasSubstr(path + ": event \"PP:0F1\" at -9223372036854775808 ns"));
}

TEST(ImportTimeBounds, TimesSpanningDaysStillImport) {
  // Legacy Kineto: absolute epoch microseconds, a run of 3 days. Nothing refused or moved.
  test::TempDir dir;
  const std::string path = dir.file("legacy.json");
  test::writeFile(path, R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "PP:0F0", "pid": 1, "tid": 2, "ts": 1694128201428473, "dur": 50},
    {"ph": "X", "cat": "user_annotation", "name": "PP:0B0", "pid": 1, "tid": 2, "ts": 1694387401428473, "dur": 80}
  ]})");
  auto run = importFiles("kineto", {path});
  ASSERT_TRUE(run.ok()) << run.error();
  ASSERT_EQ(run->ops.size(), 2U);
  EXPECT_EQ(run->ops[0].start_ns, 0);
  EXPECT_EQ(run->ops[1].start_ns, 259'200'000'000'000);  // 3 days
  EXPECT_EQ(run->ops[1].end_ns, 259'200'000'080'000);
  expectNoBackwardOps(*run);
}

// Two Kineto files whose clocks sit at opposite ends of the int64 range: each is fine alone,
// together the alignment's differences wrapped.
TEST(ImportTimeBounds, FilesAtOppositeEndsOfTheRangeAreRefused) {
  test::TempDir dir;
  const std::string low = dir.file("rank0.json"), high = dir.file("rank1.json");
  auto file = [](const std::string& ts) {
    return R"({"distributedInfo": {"rank": RANK, "world_size": 2}, "traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "PP:0F0", "pid": 1, "tid": 2, "ts": )" +
           ts + R"(, "dur": 50}]})";
  };
  std::string a = file("-9000000000000000"), b = file("9000000000000000");
  a.replace(a.find("RANK"), 4, "0");
  b.replace(b.find("RANK"), 4, "1");
  test::writeFile(low, a);
  test::writeFile(high, b);
  auto run = importFiles("kineto", {low, high});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.error(), HasSubstr(low + "'s op \"PP:0F0\" at -9000000000000000000 ns"));
  EXPECT_THAT(run.error(), HasSubstr(high + "'s op \"PP:0F0\""));
}

std::string nsysWithNvtxAt(const test::TempDir& dir, const std::string& name,
                           const std::string& sql) {
  FixtureRank rank;
  rank.events.push_back({FixtureEventKind::Annotation, "PP:0F0", 1000, 2000, -1, -1, 0});
  rank.events.push_back({FixtureEventKind::Annotation, "PP:0B0", 3000, 5000, -1, -1, 0});
  rank.events.push_back({FixtureEventKind::Annotation, "PP:0F1", 6000, 7000, -1, -1, 0});
  const std::string path = dir.file(name);
  EXPECT_TRUE(testing::writeNsysFixture(path, {rank}).ok());
  test::rawSql(path, sql);
  return path;
}

TEST(ImportTimeBounds, NsysNvtxRowsAtTheInt64ExtremesAreRefused) {
  test::TempDir dir;
  const std::string low =
      nsysWithNvtxAt(dir, "low.sqlite",
                     "UPDATE NVTX_EVENTS SET start = -9223372036854775808 WHERE text = 'PP:0F1'");
  auto run = importFiles("nsys", {low});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.error(), HasSubstr(low + ": event \"PP:0F1\" at -9223372036854775808 ns"));

  const std::string high = nsysWithNvtxAt(
      dir, "high.sqlite",
      "UPDATE NVTX_EVENTS SET start = 9223372036854775000, end = 9223372036854775807 WHERE "
      "text = 'PP:0F1'");
  run = importFiles("nsys", {high});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.error(), HasSubstr(high + ": event \"PP:0F1\" at 9223372036854775000 ns"));
}

TEST(ImportTimeBounds, ShiftThatWouldWrapIsRefusedNamingTheOp) {
  std::vector<RankOps> ranks(2);
  OpRecord op;
  op.name = "PP:1F0";
  op.start_ns = INT64_MAX - 10;
  op.end_ns = INT64_MAX - 5;
  ranks[1].ops.push_back(op);
  const auto status = shiftByOffsets(ranks, {0, 100}, {"a.json", "b.json"});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.error(), HasSubstr("b.json: op \"PP:1F0\" leaves the range of times"));
}

}  // namespace
}  // namespace ps::trace::import
