// The nsys reader on bad input: a file it must not touch, SQLite that is not an export, garbage,
// a truncated export, an unknown schema; and cancel and progress. Planted ranks: NsysPlanted.h.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/NsysFixture.h"
#include "tests/trace/import/NsysPlanted.h"
#include "tests/trace/import/RawTraceQueries.h"
#include "trace/import/nsys/NsysReader.h"
#include "trace/store/Sqlite.h"

namespace ps::trace::import {
namespace {

using testing::eventsOf;
using testing::FixtureEvent;
using testing::FixtureEventKind;
using testing::FixtureRank;
using testing::NsysFixtureOptions;
using testing::NsysReaderTest;
using testing::plantedNsysRank;

TEST_F(NsysReaderTest, ReadingLeavesTheFileUntouched) {
  const std::string path = dir_.file("report.sqlite");
  ASSERT_TRUE(testing::writeNsysFixture(path, {plantedNsysRank()}).ok());
  const std::string before = ps::test::readFile(path);
  const auto mtime = std::filesystem::last_write_time(path);
  ASSERT_TRUE(readNsysFile(path).ok());
  EXPECT_EQ(ps::test::readFile(path), before);
  EXPECT_EQ(std::filesystem::last_write_time(path), mtime);
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST_F(NsysReaderTest, SqliteThatIsNotNsysIsAnError) {
  const std::string path = dir_.file("other.sqlite");
  {
    auto db = SqliteDb::open(path, SqliteDb::Mode::ReadWriteCreate);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("CREATE TABLE op (start_ns INTEGER); INSERT INTO op VALUES (1)").ok());
  }
  auto traces = readNsysFile(path);
  ASSERT_FALSE(traces.ok());
  EXPECT_EQ(traces.error(), path + ": not an Nsight Systems export (no StringIds table)");
}

TEST_F(NsysReaderTest, GarbageBytesAreAnErrorNamingTheFile) {
  const std::string path = dir_.file("garbage.sqlite");
  ps::test::writeFile(path, std::string(4096, '\x5a') + "not a database at all");
  auto traces = readNsysFile(path);
  ASSERT_FALSE(traces.ok());
  EXPECT_NE(traces.error().find(path), std::string::npos) << traces.error();
  EXPECT_NE(traces.error().find("not a SQLite database"), std::string::npos) << traces.error();

  auto missing = readNsysFile(dir_.file("nope.sqlite"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("nope.sqlite"), std::string::npos);
}

TEST_F(NsysReaderTest, TruncatedExportIsAnErrorNotACrash) {
  const std::string path = dir_.file("report.sqlite");
  FixtureRank r = plantedNsysRank();
  for (int i = 0; i < 20000; ++i)
    r.events.push_back({FixtureEventKind::Kernel, "k", 10'000'000 + i * 100, 10'000'050 + i * 100});
  ASSERT_TRUE(testing::writeNsysFixture(path, {r}).ok());
  const std::string bytes = ps::test::readFile(path);
  ps::test::writeFile(path, bytes.substr(0, bytes.size() / 2));
  auto traces = readNsysFile(path);
  ASSERT_FALSE(traces.ok());
  EXPECT_EQ(traces.error().rfind(path + ": ", 0), 0U) << traces.error();
}

TEST_F(NsysReaderTest, UnknownSchemaMajorIsAnError) {
  NsysFixtureOptions options;
  options.schemaVersion = "4.0.0";
  const std::string path = dir_.file("future.sqlite");
  ASSERT_TRUE(testing::writeNsysFixture(path, {plantedNsysRank()}, options).ok());
  auto traces = readNsysFile(path);
  ASSERT_FALSE(traces.ok());
  EXPECT_EQ(traces.error().rfind(path + ": ", 0), 0U) << traces.error();
  EXPECT_NE(traces.error().find("schema version 4.0.0"), std::string::npos) << traces.error();
}

TEST_F(NsysReaderTest, CancelIsHonouredAndProgressIsThrottled) {
  const std::string path = dir_.file("big.sqlite");
  FixtureRank r = plantedNsysRank();
  for (int i = 0; i < 50000; ++i)
    r.events.push_back({FixtureEventKind::Kernel, "k", 10'000'000 + i * 100, 10'000'050 + i * 100});
  ASSERT_TRUE(testing::writeNsysFixture(path, {r}).ok());

  std::atomic<bool> cancel{true};
  ReadControl control;
  control.cancel = &cancel;
  auto cancelled = readNsysFile(path, control);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.error(), path + ": import cancelled");

  // Cancelled part-way, from the progress callback as a UI would.
  cancel = false;
  int calls = 0;
  control.progress = [&](double) {
    if (++calls == 2) cancel = true;
  };
  auto midway = readNsysFile(path, control);
  ASSERT_FALSE(midway.ok());
  EXPECT_EQ(midway.error(), path + ": import cancelled");

  // Uncancelled: a rising fraction, ending at 1, about a hundred calls at most.
  cancel = false;
  std::vector<double> fractions;
  control.progress = [&](double f) { fractions.push_back(f); };
  auto done = readNsysFile(path, control);
  ASSERT_TRUE(done.ok()) << done.error();
  ASSERT_FALSE(fractions.empty());
  EXPECT_LE(fractions.size(), 101U);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_EQ(fractions.back(), 1.0);
  EXPECT_EQ(eventsOf(done->front(), EventSource::Kernel).size(), 50002U);
}

// --- Real exports (PIPESCOPE_EXTERNAL_TRACES/nsys) -------------------------------------------

}  // namespace
}  // namespace ps::trace::import
