// Hostile and unusual files for the store (issue 12): a file written to the letter of DESIGN §4
// by another tool, writers racing to create one new file, refusals that must leave the file's
// bytes alone. Killed writers and a stale -wal: StoreWriterRecoveryTest.cpp.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <latch>
#include <thread>

#include "tests/common/TestUtil.h"
#include "tests/trace/FileHash.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using ::testing::HasSubstr;

using test::rawSql;

bool hasColumn(const std::string& path, const std::string& table, const std::string& column) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = "SELECT 1 FROM pragma_table_info('" + table + "') WHERE name=?";
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
  sqlite3_bind_text(stmt, 1, column.c_str(), -1, SQLITE_TRANSIENT);
  const bool found = sqlite3_step(stmt) == SQLITE_ROW;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return found;
}

// Exactly the tables of DESIGN §4, no extension columns, as another tool would write them, with
// one complete run of two ops.
constexpr const char* kContractV1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('schema_version', '1'), ('producer', 'another tool');
CREATE TABLE run(id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_utc TEXT NOT NULL,
    source TEXT NOT NULL, schedule TEXT,
    num_ranks INTEGER NOT NULL, num_stages INTEGER, num_microbatches INTEGER,
    config_json TEXT NOT NULL DEFAULT '{}', status TEXT NOT NULL);
CREATE TABLE rank(run_id, rank, host, device, memory_capacity_bytes, clock_offset_ns DEFAULT 0,
     PRIMARY KEY(run_id, rank));
CREATE TABLE op(run_id INTEGER NOT NULL, rank INTEGER NOT NULL, kind TEXT NOT NULL,
   stage INTEGER, microbatch INTEGER, step INTEGER NOT NULL DEFAULT 0,
   start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
   peer_rank INTEGER, bytes INTEGER, name TEXT);
CREATE TABLE memory(run_id, rank, t_ns, bytes);
CREATE TABLE layer(run_id, layer, name, fwd_ns, bwd_ns, wgrad_ns, act_bytes, param_bytes);
CREATE TABLE stage(run_id, stage, rank, first_layer, last_layer);
CREATE TABLE metric(run_id, step, rank, name, value REAL);
INSERT INTO run(id, name, created_utc, source, schedule, num_ranks, num_stages,
    num_microbatches, status) VALUES(1, 'theirs', '2026-01-01T00:00:00Z', 'sim', 'gpipe', 2, 2, 1,
    'complete');
INSERT INTO rank(run_id, rank) VALUES(1, 0), (1, 1);
INSERT INTO op(run_id, rank, kind, stage, microbatch, start_ns, end_ns)
    VALUES(1, 0, 'F', 0, 0, 0, 10), (1, 1, 'F', 1, 0, 10, 20);
)sql";

TEST(StoreHardening, ContractV1FileWithoutExtensionColumnsReads) {
  TempDir dir;
  const std::string path = dir.file("contract.sqlite");
  rawSql(path, kContractV1);
  auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  ASSERT_TRUE(store.ok()) << store.error();
  auto runs = store->listRuns();
  ASSERT_TRUE(runs.ok()) << runs.error();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].status, RunStatus::Complete);
  EXPECT_EQ((*runs)[0].status_message, "");
  auto run = loadRunFromFile(path, std::nullopt);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->opCount(), 2u);
  EXPECT_EQ(run->ranks.size(), 2u);
}

TEST(StoreHardening, WriterAddsTheStatusMessageColumnWithItsFirstWrite) {
  TempDir dir;
  const std::string path = dir.file("contract.sqlite");
  rawSql(path, kContractV1);
  {
    // Opening for writing is not a write: the column comes with the first one.
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store.ok()) << store.error();
  }
  EXPECT_FALSE(hasColumn(path, "run", "status_message"));
  std::int64_t id = 0;
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store.ok()) << store.error();
    auto writer = TraceWriter::begin(*store, test::simpleHeader(2, "ours"));
    ASSERT_TRUE(writer.ok()) << writer.error();
    id = writer->runId();
    TraceBatch b;
    b.ops = {test::compute(0, OpKind::F, 0, 0, 10)};
    ASSERT_TRUE(writer->write(b).ok());
    auto s = writer->finish(RunStatus::Failed, "rank 1: out of memory");
    ASSERT_TRUE(s.ok()) << s.error();
  }
  EXPECT_TRUE(hasColumn(path, "run", "status_message"));
  auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  ASSERT_TRUE(store.ok()) << store.error();
  auto runs = store->listRuns();
  ASSERT_TRUE(runs.ok()) << runs.error();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[1].id, id);
  EXPECT_EQ((*runs)[1].status, RunStatus::Failed);
  EXPECT_EQ((*runs)[1].status_message, "rank 1: out of memory");
  EXPECT_EQ((*runs)[0].status, RunStatus::Complete) << "the other tool's run is untouched";
}

// Writes one finished two-op run named `name` into `path`; "" or the store's error (for threads
// and forked children, which must not throw across their boundary).
std::string writeTwoOpRun(const std::string& path, const std::string& name,
                          const std::function<void()>& beforeFinish = {}) {
  TraceBatch b;
  b.ops = {test::compute(0, OpKind::F, 0, 0, 10), test::compute(1, OpKind::F, 0, 10, 20)};
  try {
    test::writeRun(path, test::simpleHeader(2, name), b, beforeFinish);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

void expectCompleteAtRest(const std::string& path, std::size_t runCount, int trial) {
  const auto runs = test::runsIn(path);
  EXPECT_EQ(runs.size(), runCount) << "trial " << trial;
  for (const auto& r : runs)
    EXPECT_EQ(r.status, RunStatus::Complete);
  // The last store to close, whichever it was, switched the file back to a rollback journal.
  EXPECT_FALSE(fs::exists(path + "-wal")) << "trial " << trial;
  EXPECT_FALSE(fs::exists(path + "-shm")) << "trial " << trial;
}

TEST(StoreHardening, EightWritersCreatingOneNewFileAllSucceed) {
  for (int trial = 0; trial < 3; ++trial) {
    TempDir dir;
    const std::string path = dir.file("race.sqlite");
    constexpr int kWriters = 8;
    std::vector<std::string> errors(kWriters);
    std::latch start(kWriters);
    std::vector<std::thread> threads;
    for (int i = 0; i < kWriters; ++i)
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        errors[i] = writeTwoOpRun(path, "w" + std::to_string(i));
      });
    for (auto& t : threads)
      t.join();
    for (int i = 0; i < kWriters; ++i)
      EXPECT_EQ(errors[i], "") << "trial " << trial << " writer " << i;
    expectCompleteAtRest(path, kWriters, trial);
  }
}

// Processes finishing at the same moment: without turns for closing, each saw another still open
// and the -wal stayed behind.
TEST(StoreHardening, EightProcessesFinishingAtOnceLeaveNoWal) {
  constexpr int kWriters = 8;
  for (int trial = 0; trial < 3; ++trial) {
    TempDir dir;
    const std::string path = dir.file("race.sqlite");
    test::writeRun(path, test::simpleHeader(2, "first"), {});
    int ready[2], go[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(go), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < kWriters; ++i) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        close(ready[0]);
        close(go[1]);
        const auto error = writeTwoOpRun(path, "p" + std::to_string(i), [&] {
          const char r = 'r';
          (void)!write(ready[1], &r, 1);
          char g = 0;
          (void)!read(go[0], &g, 1);  // returns 0 for every child when the parent closes go[1]
        });
        _exit(error.empty() ? 0 : 3);
      }
      children.push_back(pid);
    }
    close(ready[1]);
    close(go[0]);
    for (int i = 0; i < kWriters; ++i) {
      char r = 0;
      ASSERT_EQ(read(ready[0], &r, 1), 1) << "a writer failed before its rendezvous";
    }
    close(go[1]);
    close(ready[0]);
    for (const pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "trial " << trial;
    }
    expectCompleteAtRest(path, kWriters + 1, trial);
  }
}

// A refused open for writing leaves every byte of the file as it was, and no -wal/-shm.
void expectRefusedUntouched(const std::string& path, const std::string& message) {
  const std::uint64_t before = fileHash(path);
  const auto size = fs::file_size(path);
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.error(), message);
  }
  EXPECT_EQ(fileHash(path), before) << "the refused file changed";
  EXPECT_EQ(fs::file_size(path), size);
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-shm"));
  EXPECT_FALSE(fs::exists(path + "-journal"));
}

TEST(StoreHardening, RefusingAnotherAppsSqliteLeavesItsBytes) {
  TempDir dir;
  const std::string path = dir.file("R.sqlite");
  // Shaped like an Nsight Systems export: `import nsys R.sqlite --db R.sqlite`.
  rawSql(path,
         "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
         "CREATE TABLE TARGET_INFO_GPU(id INTEGER, name TEXT);"
         "INSERT INTO StringIds VALUES(1, 'PP:0F0');");
  expectRefusedUntouched(
      path, path + ": is a SQLite database but not a PipeScope trace; refusing to write into it");
}

TEST(StoreHardening, RefusingAForeignWalModeFileLeavesItsBytes) {
  TempDir dir;
  const std::string path = dir.file("wal.sqlite");
  rawSql(path,
         "PRAGMA journal_mode=WAL; CREATE TABLE cars(id INTEGER); INSERT INTO cars VALUES(1);");
  expectRefusedUntouched(
      path, path + ": is a SQLite database but not a PipeScope trace; refusing to write into it");
}

TEST(StoreHardening, RefusingAFutureVersionLeavesItsBytes) {
  TempDir dir;
  const std::string path = dir.file("future.sqlite");
  test::writeRun(path, test::simpleHeader(1), {});
  rawSql(path, "UPDATE meta SET value='7' WHERE key='schema_version'");
  expectRefusedUntouched(path, path +
                                   ": schema version 7 is newer than this PipeScope supports "
                                   "(1); update PipeScope to read it");
}

TEST(StoreHardening, RefusingVersionZeroLeavesItsBytes) {
  TempDir dir;
  const std::string path = dir.file("zero.sqlite");
  test::writeRun(path, test::simpleHeader(1), {});
  rawSql(path, "UPDATE meta SET value='0' WHERE key='schema_version'");
  expectRefusedUntouched(path, path + ": schema_version '0' is not a version number");
}

TEST(StoreHardening, RefusingMissingTablesLeavesItsBytes) {
  TempDir dir;
  const std::string path = dir.file("partial.sqlite");
  test::writeRun(path, test::simpleHeader(1), {});
  rawSql(path, "DROP TABLE layer");
  expectRefusedUntouched(path, path + ": not a complete PipeScope trace (missing tables: layer)");
}

TEST(StoreHardening, CleanCloseLeavesNoWalOrShm) {
  TempDir dir;
  const std::string path = dir.file("clean.sqlite");
  test::writeRun(path, test::simpleHeader(2), {});
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-shm"));
}

// Forks a child that opens `path` for writing, begins a run, writes one step and then waits to be
// killed. Returns the child's pid once the step is in the file.
}  // namespace
}  // namespace ps::trace
