// A cancelled import takes back only what it wrote (issue 30, item 1). It used to remove the file
// it had created, with its -wal and -shm, even when another process had appended a complete run
// to it meanwhile. Two real processes: a long torch-csv import (simulated, then written step by
// step) and a `sim` that appends its run while the import writes; then Ctrl-C the import.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/app/CliSignalUtil.h"
#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using Clock = std::chrono::steady_clock;

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// GPipe on 4 ranks with `microbatches` micro-batches, in torch pipelining's CSV.
void writeGpipeCsv(const std::string& path, int microbatches) {
  std::ofstream out(path);
  for (int r = 0; r < 4; ++r) {
    for (int mb = 0; mb < microbatches; ++mb)
      out << (mb ? "," : "") << r << 'F' << mb;
    for (int mb = microbatches - 1; mb >= 0; --mb)
      out << ',' << r << 'B' << mb;
    out << '\n';
  }
}

// An import that writes for several seconds: 4 ranks x 2000 micro-batches x 40 steps (~1.3M
// ops with their transfers), one transaction per step.
std::vector<std::string> longImport(const std::string& csv, const std::string& db) {
  return {test::cliPath(), "import", "torch-csv", csv, "--steps", "40", "--db", db};
}

// Waits until the import has begun writing (its -wal is there) or has ended.
bool waitForWrite(test::ChildProcess& child, const std::string& db) {
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline) {
    if (exists(db + "-wal")) return true;
    if (child.waitFor(std::chrono::milliseconds(5))) return false;
  }
  return false;
}

// Whether no connection holds the write lock of `db` now (a write transaction of ours gets it
// at once, and is rolled back).
bool writeLockFree(const std::string& db) {
  sqlite3* handle = nullptr;
  bool free = false;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(handle, 0);
    free = sqlite3_exec(handle, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK;
    if (free) sqlite3_exec(handle, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  sqlite3_close(handle);
  return free;
}

bool stopped(pid_t pid) {
  const std::string stat = test::readFile("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'T';
}

// Stops the import between two of its write transactions. SQLite's busy wait polls, so a writer
// waiting for the lock gets in between another's back-to-back transactions only by luck (on an
// idle machine mostly; under the sanitizers it missed every gap for 5 s): stopping the import
// there lets the other writer in every time.
bool stopBetweenTransactions(test::ChildProcess& child, const std::string& db) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    child.signal(SIGSTOP);
    for (int i = 0; i < 1000 && !stopped(child.pid()); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (writeLockFree(db)) return true;
    child.signal(SIGCONT);
    std::this_thread::sleep_for(std::chrono::milliseconds(2 + attempt % 7));
  }
  return false;
}

void interrupt(test::ChildProcess& child, const std::string& db) {
  const auto sent = Clock::now();
  child.signal(SIGINT);
  const auto code = child.waitFor(std::chrono::seconds(30));
  ASSERT_TRUE(code.has_value()) << "still running 30 s after SIGINT";
  std::printf(
      "[ measure  ] import: SIGINT to exit: %lld ms%s\n",
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent).count()),
      test::kSanitized ? " (ASan+UBSan build)" : "");
  EXPECT_EQ(*code, 1) << child.err();
  EXPECT_EQ(child.err(), "pipescope-cli: error: " + db + ": no run written: import cancelled\n");
}

TEST(CliCancelTakesBack, AnotherProcesssRunSurvivesACancelledImportThatCreatedTheFile) {
  TempDir dir;
  const std::string csv = dir.file("big.csv");
  writeGpipeCsv(csv, 2000);
  const std::string db = dir.file("new.sqlite");
  test::ChildProcess import(longImport(csv, db));
  ASSERT_TRUE(waitForWrite(import, db)) << import.err();
  // Appended while the import writes, between two of its step transactions.
  ASSERT_TRUE(stopBetweenTransactions(import, db)) << "the import never left its write lock";
  const auto sim = cli({"sim", "--schedule", "gpipe", "--stages", "4", "--microbatches", "8",
                        "--db", db, "--name", "my important run"});
  import.signal(SIGCONT);
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(import.running()) << "the import finished before the signal: make it longer";
  interrupt(import, db);
  ASSERT_TRUE(exists(db)) << "the file, with the other process's run, was removed";
  const auto runs = test::runsIn(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "my important run");
  EXPECT_EQ(runs[0].status, trace::RunStatus::Complete);
  const auto report = cli({"report", db});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.out, ::testing::HasSubstr("my important run"));
  EXPECT_FALSE(exists(db + "-wal"));
  EXPECT_FALSE(exists(db + "-shm"));
}

TEST(CliCancelTakesBack, ACancelledImportAloneRemovesTheFileItCreated) {
  TempDir dir;
  const std::string csv = dir.file("big.csv");
  writeGpipeCsv(csv, 2000);
  const std::string db = dir.file("new.sqlite");
  test::ChildProcess import(longImport(csv, db));
  ASSERT_TRUE(waitForWrite(import, db)) << import.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(import.running()) << "the import finished before the signal: make it longer";
  interrupt(import, db);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    EXPECT_FALSE(exists(db + suffix)) << db + suffix << " left behind";
}

TEST(CliCancelTakesBack, ACancelledImportIntoAnExistingFileLeavesOnlyTheRunsBefore) {
  TempDir dir;
  const std::string csv = dir.file("big.csv");
  writeGpipeCsv(csv, 2000);
  const std::string db = dir.file("keep.sqlite");
  ASSERT_EQ(cli({"sim", "--schedule", "1f1b", "--stages", "2", "--microbatches", "2", "--db", db})
                .exit_code,
            0);
  test::ChildProcess import(longImport(csv, db));
  ASSERT_TRUE(waitForWrite(import, db)) << import.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(import.running()) << "the import finished before the signal: make it longer";
  interrupt(import, db);
  const auto runs = test::runsIn(db);
  ASSERT_EQ(runs.size(), 1u) << "the cancelled import's run is still in the file";
  EXPECT_EQ(runs[0].id, 1);
  EXPECT_EQ(runs[0].status, trace::RunStatus::Complete);
  EXPECT_FALSE(exists(db + "-wal"));
}

}  // namespace
}  // namespace ps
