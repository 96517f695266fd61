// Following a run while another connection writes it (issue 16 goal 4): a writer thread appends
// steps while the tail polls; no poll fails, no write is refused, every step appears whole and
// in order, and the run the tail ends with equals the run loadRun reads from the file.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "tests/common/RunTraceCompare.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/store/RunTail.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps::trace {
namespace {

constexpr int kRanks = 3;
constexpr int kOpsPerStep = 2 * kRanks + 1;

// One training step: F and B on every rank, a SEND whose start lies before the step's first op
// (rows out of start order), a memory sample per rank and a loss metric.
TraceBatch stepBatch(int step) {
  TraceBatch batch;
  const std::int64_t t0 = 1000 * step;
  for (int r = kRanks - 1; r >= 0; --r) {
    batch.ops.push_back(test::compute(r, OpKind::F, 0, t0 + 100 * r, t0 + 100 * r + 90, step));
    batch.ops.push_back(test::compute(r, OpKind::B, 0, t0 + 500, t0 + 600, step));
  }
  batch.ops.push_back(test::send(0, 1, 64, t0 - 50, t0 + 10, step));
  for (int r = 0; r < kRanks; ++r)
    batch.memory.push_back({r, t0 + 1, 1000 + step});
  batch.metrics.push_back({step, std::nullopt, "loss", 1.0 / (step + 1)});
  return batch;
}

int wholeSteps(const RunTrace& run, bool& whole) {
  whole = run.opCount() % kOpsPerStep == 0;
  return static_cast<int>(run.opCount() / kOpsPerStep);
}

TEST(RunTail, FollowsAWriterStepByStepAndEndsEqualToTheFile) {
  test::TempDir dir;
  const std::string path = dir.file("live.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store) << store.error();
  auto writer = TraceWriter::begin(*store, test::simpleHeader(kRanks, "live"));
  ASSERT_TRUE(writer) << writer.error();

  auto tail = RunTail::open(path, writer->runId());
  ASSERT_TRUE(tail) << tail.error();
  EXPECT_EQ(tail->info().status, RunStatus::Running);
  EXPECT_EQ(tail->rowsRead(), 0);

  constexpr int kSteps = 60;
  std::atomic<int> written{0};
  std::atomic<int> writeErrors{0};
  std::thread writing([&] {
    for (int k = 0; k < kSteps; ++k) {
      if (!writer->write(stepBatch(k))) ++writeErrors;
      written = k + 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (!writer->finish(RunStatus::Complete)) ++writeErrors;
  });

  std::vector<int> seen;  // steps held after each poll that changed something
  int pollErrors = 0;
  bool allWhole = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    auto changed = tail->poll();
    if (!changed) {
      ++pollErrors;
      ADD_FAILURE() << changed.error();
      continue;
    }
    if (*changed) {
      bool whole = false;
      seen.push_back(wholeSteps(tail->snapshot(), whole));
      allWhole = allWhole && whole;
    }
    if (tail->info().status != RunStatus::Running) break;
  }
  writing.join();
  EXPECT_EQ(writeErrors, 0) << "the writer was never refused (busy) by the reader";
  EXPECT_EQ(pollErrors, 0);
  EXPECT_TRUE(allWhole) << "a step showed half-written";
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), kSteps);
  EXPECT_GT(seen.size(), 2u) << "the run was seen growing, not only once finished";
  EXPECT_EQ(tail->info().status, RunStatus::Complete);

  const RunTrace followed = tail->snapshot();
  auto file = loadRunFromFile(path, writer->runId());
  ASSERT_TRUE(file) << file.error();
  test::expectSameRun(followed, *file);
  EXPECT_EQ(followed.metrics.size(), static_cast<std::size_t>(kSteps));
  // Nothing more to read: a poll after the end changes nothing.
  auto again = tail->poll();
  ASSERT_TRUE(again) << again.error();
  EXPECT_FALSE(*again);
}

TEST(RunTail, RowsOnRanksBeyondTheHeaderAndRepairsWarnAsALoadDoes) {
  test::TempDir dir;
  const std::string path = dir.file("odd.sqlite");
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store) << store.error();
  auto writer = TraceWriter::begin(*store, test::simpleHeader(2, "odd"));
  ASSERT_TRUE(writer) << writer.error();
  auto tail = RunTail::open(path, writer->runId());
  ASSERT_TRUE(tail) << tail.error();
  TraceBatch batch = stepBatch(0);
  batch.ops.push_back(test::compute(1, OpKind::F, 1, 900, 800));  // ends before it starts
  ASSERT_TRUE(writer->write(batch));
  ASSERT_TRUE(tail->poll());
  ASSERT_TRUE(writer->finish(RunStatus::Failed, "stopped on purpose"));
  auto changed = tail->poll();
  ASSERT_TRUE(changed) << changed.error();
  EXPECT_TRUE(*changed) << "the status changed";
  EXPECT_EQ(tail->info().status_message, "stopped on purpose");
  auto file = loadRunFromFile(path, writer->runId());
  ASSERT_TRUE(file) << file.error();
  const RunTrace followed = tail->snapshot();
  EXPECT_EQ(followed.warnings, file->warnings);
  EXPECT_EQ(followed.warnings.size(), 2u) << "a repaired op and a third rank";
  EXPECT_EQ(followed.info.num_ranks, 3);
  EXPECT_EQ(followed.ranks[1].lanes[0].size(), file->ranks[1].lanes[0].size());
}

TEST(RunTail, ADeletedRunIsAnErrorAndTheTailKeepsWhatItHad) {
  test::TempDir dir;
  const std::string path = dir.file("gone.sqlite");
  const std::int64_t id = test::writeRun(path, test::simpleHeader(kRanks), stepBatch(0));
  auto tail = RunTail::open(path, id);
  ASSERT_TRUE(tail) << tail.error();
  EXPECT_EQ(tail->snapshot().opCount(), static_cast<std::size_t>(kOpsPerStep));
  auto store = TraceStore::open(path, TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store) << store.error();
  ASSERT_TRUE(store->deleteRun(id));
  auto changed = tail->poll();
  ASSERT_FALSE(changed);
  EXPECT_NE(changed.error().find(path), std::string::npos) << changed.error();
  EXPECT_EQ(tail->snapshot().opCount(), static_cast<std::size_t>(kOpsPerStep));
  EXPECT_FALSE(RunTail::open(path, id + 7));
}

}  // namespace
}  // namespace ps::trace
