// abandonWrite (issue 30, item 1): a writer that did not finish takes back its own run only, and
// the file it created only while nobody else has a run in it or the file open.

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/store/AbandonedWrite.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps {
namespace {

using test::TempDir;
using trace::OpKind;
using trace::TraceStore;

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

TraceStore openWritable(const std::string& path) {
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  if (!store) throw std::runtime_error(store.error());
  return std::move(*store);
}

// Begins a run in `store` with a few ops and drops its writer unfinished (a cancelled write).
std::int64_t beginUnfinished(TraceStore& store) {
  auto writer = trace::TraceWriter::begin(store, test::simpleHeader(2, "cancelled import"));
  if (!writer) throw std::runtime_error(writer.error());
  trace::TraceBatch batch;
  batch.ops = {test::compute(0, OpKind::F, 0, 0, 10), test::compute(1, OpKind::F, 0, 10, 20)};
  if (auto s = writer->write(batch); !s) throw std::runtime_error(s.error());
  return writer->runId();
}

trace::TraceBatch oneOp() {
  trace::TraceBatch batch;
  batch.ops = {test::compute(0, OpKind::F, 0, 0, 100)};
  return batch;
}

TEST(AbandonedWrite, TheOnlyWriterOfAFileItCreatedRemovesIt) {
  TempDir dir;
  const std::string path = dir.file("new.sqlite");
  TraceStore store = openWritable(path);
  const std::int64_t ours = beginUnfinished(store);
  ASSERT_TRUE(exists(path + "-wal"));
  auto taken = trace::abandonWrite(std::move(store), ours, true);
  ASSERT_TRUE(taken) << taken.error();
  EXPECT_TRUE(taken->fileRemoved);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    EXPECT_FALSE(exists(path + suffix)) << path + suffix;
}

TEST(AbandonedWrite, ARunAnotherWriterAppendedKeepsTheFileAndOnlyOurRunGoes) {
  TempDir dir;
  const std::string path = dir.file("new.sqlite");
  TraceStore store = openWritable(path);
  const std::int64_t ours = beginUnfinished(store);
  const std::int64_t theirs =
      test::writeRun(path, test::simpleHeader(1, "my important run"), oneOp());
  auto taken = trace::abandonWrite(std::move(store), ours, true);
  ASSERT_TRUE(taken) << taken.error();
  EXPECT_FALSE(taken->fileRemoved);
  EXPECT_TRUE(taken->runDeleted);
  const auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, theirs);
  EXPECT_EQ(runs[0].name, "my important run");
  EXPECT_EQ(runs[0].status, trace::RunStatus::Complete);
}

TEST(AbandonedWrite, AWriterThatOpenedTheFileKeepsItAndCanStillAppend) {
  TempDir dir;
  const std::string path = dir.file("new.sqlite");
  TraceStore store = openWritable(path);
  const std::int64_t ours = beginUnfinished(store);
  std::optional<TraceStore> other = openWritable(path);  // about to append, nothing written yet
  auto taken = trace::abandonWrite(std::move(store), ours, true);
  ASSERT_TRUE(taken) << taken.error();
  EXPECT_FALSE(taken->fileRemoved);
  {
    auto writer = trace::TraceWriter::begin(*other, test::simpleHeader(1, "late run"));
    ASSERT_TRUE(writer) << writer.error();
    ASSERT_TRUE(writer->write(oneOp()));
    ASSERT_TRUE(writer->finish(trace::RunStatus::Complete));
  }
  other.reset();
  const auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "late run");
}

TEST(AbandonedWrite, AFileWeDidNotCreateStaysWithTheRunsBefore) {
  TempDir dir;
  const std::string path = dir.file("old.sqlite");
  test::writeRun(path, test::simpleHeader(1, "before"), oneOp());
  TraceStore store = openWritable(path);
  const std::int64_t ours = beginUnfinished(store);
  auto taken = trace::abandonWrite(std::move(store), ours, false);
  ASSERT_TRUE(taken) << taken.error();
  EXPECT_FALSE(taken->fileRemoved);
  const auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "before");
}

TEST(AbandonedWrite, AStoreTellsWhenItsFileWasRemovedUnderIt) {
  TempDir dir;
  const std::string path = dir.file("gone.sqlite");
  test::writeRun(path, test::simpleHeader(1, "old"), oneOp());
  TraceStore held = openWritable(path);
  EXPECT_FALSE(trace::openedFileMoved(held.db()));
  std::filesystem::remove(path);  // as abandonWrite does once alone
  EXPECT_TRUE(trace::openedFileMoved(held.db()));
}

}  // namespace
}  // namespace ps
