// A run left 'running' by a writer that is gone (issue 30, item 19): only a writable open marked
// it failed ("writer stopped"), so in a read-only folder, on read-only media or to a read-only
// reader (`report`, the app) it showed 'running' forever. The lock probe needs no write access:
// every store now says "writer gone", and a read-only one leaves the file as it is.

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps {
namespace {

using test::TempDir;
using trace::OpKind;
using trace::RunStatus;
using trace::TraceStore;

trace::TraceBatch oneStep() {
  trace::TraceBatch batch;
  batch.ops = {test::compute(0, OpKind::F, 0, 0, 100), test::compute(1, OpKind::F, 0, 100, 200)};
  return batch;
}

// A run whose writer wrote a step and then vanished without finishing (as a killed one does).
std::string fileWithAGoneWriter(const TempDir& dir) {
  const std::string path = dir.file("gone.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  if (!store) throw std::runtime_error(store.error());
  auto writer = trace::TraceWriter::begin(*store, test::simpleHeader(2, "killed"));
  if (!writer) throw std::runtime_error(writer.error());
  if (auto s = writer->write(oneStep()); !s) throw std::runtime_error(s.error());
  return path;
}

TEST(WriterGone, AReadOnlyStoreSaysWriterGoneAndLeavesTheFileAsItIs) {
  TempDir dir;
  const std::string path = fileWithAGoneWriter(dir);
  const std::string before = test::readFile(path);
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store) << store.error();
    auto runs = store->listRuns();
    ASSERT_TRUE(runs) << runs.error();
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ((*runs)[0].status, RunStatus::Failed);
    EXPECT_EQ((*runs)[0].status_message, "writer gone");
    auto one = store->run(1);
    ASSERT_TRUE(one) << one.error();
    EXPECT_EQ(one->status, RunStatus::Failed);
    EXPECT_EQ(one->status_message, "writer gone");
    auto latest = store->latestRun();
    ASSERT_TRUE(latest) << latest.error();
    EXPECT_EQ(latest->status_message, "writer gone");
  }
  EXPECT_EQ(test::readFile(path), before) << "a read-only store wrote into the file";
  // A writable open still marks it in the file, as before.
  {
    auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(store) << store.error();
  }
  const auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, RunStatus::Failed);
  EXPECT_EQ(runs[0].status_message, "writer stopped");
}

TEST(WriterGone, ALiveWritersRunStaysRunning) {
  TempDir dir;
  const std::string path = dir.file("live.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store) << store.error();
  auto writer = trace::TraceWriter::begin(*store, test::simpleHeader(2, "live"));
  ASSERT_TRUE(writer) << writer.error();
  ASSERT_TRUE(writer->write(oneStep()));
  auto reader = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  ASSERT_TRUE(reader) << reader.error();
  auto run = reader->run(writer->runId());
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->status, RunStatus::Running);
  EXPECT_EQ(run->status_message, "");
  ASSERT_TRUE(writer->finish(RunStatus::Complete));
  run = reader->run(1);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->status, RunStatus::Complete) << "a finished run is not taken for a gone writer";
}

// The race a live tail hit (CI, RunTail): its read transaction took a snapshot, the writer then
// committed 'complete' and let go of its lock, and the probe found the lock free while the read
// again still saw the snapshot's 'running': a finished run read "failed: writer gone".
TEST(WriterGone, AWriterThatFinishesDuringAReadTransactionIsNotTakenForGone) {
  TempDir dir;
  const std::string path = dir.file("race.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store) << store.error();
  auto writer = trace::TraceWriter::begin(*store, test::simpleHeader(2, "race"));
  ASSERT_TRUE(writer) << writer.error();
  ASSERT_TRUE(writer->write(oneStep()));
  auto reader = TraceStore::open(path, TraceStore::Mode::ReadOnly);
  ASSERT_TRUE(reader) << reader.error();
  ASSERT_TRUE(reader->db().exec("BEGIN"));
  auto during = reader->run(writer->runId());  // the snapshot is taken here
  ASSERT_TRUE(during) << during.error();
  ASSERT_TRUE(writer->finish(RunStatus::Complete));
  during = reader->run(writer->runId());
  ASSERT_TRUE(during) << during.error();
  EXPECT_EQ(during->status, RunStatus::Running) << during->status_message;
  ASSERT_TRUE(reader->db().exec("COMMIT"));
  auto after = reader->run(writer->runId());
  ASSERT_TRUE(after) << after.error();
  EXPECT_EQ(after->status, RunStatus::Complete);
}

}  // namespace
}  // namespace ps
