// `report` on a run whose writer was killed (issue 30, item 19): it said "status running" until
// some writer opened the file again (never, in a read-only folder or on read-only media). The
// report reads the file read-only, probes the run's lock and says "writer gone", and leaves the
// file exactly as it was.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>

#include "tests/app/CliSignalUtil.h"
#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"
#include "trace/store/TraceStore.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// Whether the run in `db` has written at least one step (read-only).
bool stepWritten(const std::string& db) {
  auto store = trace::TraceStore::open(db, trace::TraceStore::Mode::ReadOnly);
  if (!store) return false;
  auto stmt = store->db().prepare("SELECT COUNT(*) FROM op");
  if (!stmt) return false;
  auto row = stmt->step();
  return row && *row && stmt->int64(0) > 0;
}

TEST(CliWriterGone, ReportOfAKilledWritersRunSaysWriterGoneAndWritesNothing) {
  TempDir dir;
  const std::string db = dir.file("killed.sqlite");
  test::ChildProcess child(test::longCpuRun(db));
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  bool written = false;
  while (!written && Clock::now() < deadline) {
    ASSERT_FALSE(child.waitFor(std::chrono::milliseconds(20))) << child.err();
    written = std::filesystem::exists(db + "-wal") && stepWritten(db);
  }
  ASSERT_TRUE(written) << "no step written in 60 s";
  child.signal(SIGKILL);
  ASSERT_TRUE(child.waitFor(std::chrono::seconds(20)).has_value());

  const std::string before = test::readFile(db);
  const std::string walBefore = test::readFile(db + "-wal");
  const auto report = cli({"report", db});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("status failed"));
  EXPECT_THAT(report.out, HasSubstr("writer gone"));
  EXPECT_THAT(report.out, ::testing::Not(HasSubstr("status running")));
  EXPECT_EQ(test::readFile(db), before) << "report wrote into the file";
  EXPECT_EQ(test::readFile(db + "-wal"), walBefore) << "report wrote into the -wal";
}

}  // namespace
}  // namespace ps
