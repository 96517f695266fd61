// A writer that dies (SIGKILL, or dropped without finish) leaves its run 'running': the next
// writer that finds no live writer behind it marks it failed, a live writer's run stays running,
// and a stale -wal on a read-only location opens immutable.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

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

pid_t startWriterThatWaits(const std::string& path) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    if (!store) _exit(3);
    auto writer = TraceWriter::begin(*store, test::simpleHeader(2, "killed"));
    if (!writer) _exit(4);
    TraceBatch b;
    b.ops = {test::compute(0, OpKind::F, 0, 0, 10), test::compute(1, OpKind::F, 0, 10, 20)};
    if (!writer->write(b)) _exit(5);
    const char ready = 'r';
    if (write(fds[1], &ready, 1) != 1) _exit(6);
    for (;;)
      pause();
  }
  close(fds[1]);
  char ready = 0;
  const bool ok = read(fds[0], &ready, 1) == 1;
  close(fds[0]);
  if (!ok) {
    int status = 0;
    waitpid(pid, &status, 0);
    return -1;
  }
  return pid;
}

void kill9(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

TEST(StoreHardening, AKilledWritersRunIsMarkedFailedByTheNextWriter) {
  TempDir dir;
  const std::string path = dir.file("killed.sqlite");
  test::writeRun(path, test::simpleHeader(2, "done"), {});
  const pid_t child = startWriterThatWaits(path);
  ASSERT_GT(child, 0);
  kill9(child);
  // Readers never change the file, but they tell that the writer is gone (issue 30, item 19).
  const std::string before = test::readFile(path);
  auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].status, RunStatus::Failed);
  EXPECT_EQ(runs[1].status_message, "writer gone");
  EXPECT_EQ(test::readFile(path), before);
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store.ok()) << store.error();
  }
  runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].status, RunStatus::Complete);
  EXPECT_EQ(runs[1].status, RunStatus::Failed);
  EXPECT_EQ(runs[1].status_message, "writer stopped");
  auto run = loadRunFromFile(path, runs[1].id);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->opCount(), 2u) << "the killed run's completed step stays readable";
}

TEST(StoreHardening, ALiveWritersRunStaysRunning) {
  TempDir dir;
  const std::string path = dir.file("live.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  auto writer = TraceWriter::begin(*store, test::simpleHeader(2));
  ASSERT_TRUE(writer.ok()) << writer.error();
  {
    // Another writer (here another connection of this process; the lock is per open file
    // description, so it works the same across processes).
    auto other = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(other.ok()) << other.error();
    auto info = other->run(writer->runId());
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->status, RunStatus::Running);
  }
  // Also a live writer in another process: the child holds its run's lock while we open.
  const pid_t child = startWriterThatWaits(path);
  ASSERT_GT(child, 0);
  {
    auto other = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(other.ok()) << other.error();
    auto runs = other->listRuns();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 2u);
    EXPECT_EQ((*runs)[1].status, RunStatus::Running) << "the child is alive";
  }
  kill9(child);
  ASSERT_TRUE(writer->finish(RunStatus::Complete).ok());
  auto info = store->run(writer->runId());
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->status, RunStatus::Complete);
}

TEST(StoreHardening, AWriterDroppedWithoutFinishIsMarkedFailedOnNextOpen) {
  TempDir dir;
  const std::string path = dir.file("dropped.sqlite");
  std::int64_t id = 0;
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store.ok());
    auto writer = TraceWriter::begin(*store, test::simpleHeader(1));
    ASSERT_TRUE(writer.ok());
    id = writer->runId();
  }
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok());
  auto info = store->run(id);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->status, RunStatus::Failed);
  EXPECT_EQ(info->status_message, "writer stopped");
}

// A killed writer's file copied to (or left on) a location where the reader cannot create the
// -shm: simulated by a -shm that is a link into a directory that does not exist, so creating it
// fails exactly as on read-only media (root ignores chmod, so a read-only directory would not).
TEST(StoreHardening, StaleWalOnAReadOnlyLocationOpensImmutable) {
  TempDir dir;
  const std::string path = dir.file("stale.sqlite");
  test::writeRun(path, test::simpleHeader(2, "done"), {});
  const pid_t child = startWriterThatWaits(path);
  ASSERT_GT(child, 0);
  kill9(child);
  ASSERT_TRUE(fs::exists(path + "-wal"));
  fs::remove(path + "-shm");
  fs::create_symlink(dir.file("no-such-dir/shm"), path + "-shm");
  const std::uint64_t before = fileHash(path);

  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store.ok()) << store.error();
    ASSERT_EQ(store->warnings().size(), 1u);
    EXPECT_EQ(store->warnings()[0],
              path +
                  ": opened read-only without its -wal file (its -shm cannot be created here); "
                  "writes not yet checkpointed into the file are not shown");
    auto runs = store->listRuns();
    ASSERT_TRUE(runs.ok()) << runs.error();
    ASSERT_GE(runs->size(), 1u);
    EXPECT_EQ((*runs)[0].name, "done");
    auto run = loadRun(*store, (*runs)[0].id);
    ASSERT_TRUE(run.ok()) << run.error();
    EXPECT_THAT(run->warnings, ::testing::Contains(store->warnings()[0]));
  }
  EXPECT_EQ(fileHash(path), before);
  EXPECT_TRUE(fs::is_symlink(path + "-shm"));
  EXPECT_FALSE(fs::exists(dir.file("no-such-dir")));
}

}  // namespace
}  // namespace ps::trace
