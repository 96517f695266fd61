// LiveFollower, without a window: following a run while another writer appends steps announces
// the run grown with exactly the steps committed so far, nothing when nothing was committed, and
// the run as the file ends it once the writer has finished (after which it stops following).

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "tests/ui/LiveSteps.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"
#include "ui/LiveFollower.h"
#include "ui/LoadedRun.h"

namespace ps::ui {
namespace {

TEST(LiveFollower, AnnouncesTheRunGrownUntilItEnds) {
  test::TempDir dir;
  const std::string path = dir.file("live.sqlite");
  const QString file = QString::fromStdString(path);
  test::writeRun(path, test::simpleHeader(test::kLiveRanks, "done"), test::liveStepBatch(0));
  auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store) << store.error();
  auto writer = trace::TraceWriter::begin(*store, test::simpleHeader(test::kLiveRanks, "live"));
  ASSERT_TRUE(writer) << writer.error();
  ASSERT_TRUE(writer->write(test::liveStepBatch(0)));
  auto shown = loadAndAnalyse(file, writer->runId());
  ASSERT_TRUE(shown) << shown.error();
  ASSERT_EQ((*shown)->trace->opCount(), test::kLiveOpsPerStep);

  LiveFollower follower;
  std::vector<std::shared_ptr<const LoadedRun>> grown;
  QObject::connect(&follower, &LiveFollower::grown,
                   [&](const std::shared_ptr<const LoadedRun>& run) { grown.push_back(run); });
  ASSERT_TRUE(follower.follow(file, *shown));
  EXPECT_TRUE(grown.empty()) << "nothing was committed since the run was loaded";

  ASSERT_TRUE(writer->write(test::liveStepBatch(1)));
  ASSERT_TRUE(writer->write(test::liveStepBatch(2)));
  ASSERT_TRUE(follower.follow(file, *shown));
  ASSERT_EQ(grown.size(), 1u);
  EXPECT_EQ(grown.back()->id(), writer->runId());
  EXPECT_EQ(grown.back()->trace->opCount(), 3 * test::kLiveOpsPerStep);
  EXPECT_EQ(grown.back()->trace->info.status, trace::RunStatus::Running);
  EXPECT_TRUE(follower.following());
  ASSERT_TRUE(follower.follow(file, grown.back()));
  EXPECT_EQ(grown.size(), 1u) << "no new rows: nothing announced";

  ASSERT_TRUE(writer->write(test::liveStepBatch(3)));
  ASSERT_TRUE(writer->finish(trace::RunStatus::Complete));
  ASSERT_TRUE(follower.follow(file, grown.back()));
  ASSERT_EQ(grown.size(), 2u);
  EXPECT_EQ(grown.back()->trace->opCount(), 4 * test::kLiveOpsPerStep);
  EXPECT_EQ(grown.back()->trace->info.status, trace::RunStatus::Complete);
  EXPECT_FALSE(follower.following()) << "an ended run is not followed any more";
}

TEST(LiveFollower, SaysWhyARunCannotBeFollowed) {
  test::TempDir dir;
  const std::string path = dir.file("done.sqlite");
  const std::int64_t id =
      test::writeRun(path, test::simpleHeader(test::kLiveRanks, "done"), test::liveStepBatch(0));
  const QString file = QString::fromStdString(path);
  auto shown = loadAndAnalyse(file, id);
  ASSERT_TRUE(shown) << shown.error();
  LiveFollower follower;
  QString said;
  QObject::connect(&follower, &LiveFollower::message,
                   [&](const QString& text, int) { said = text; });
  EXPECT_FALSE(follower.follow(QString::fromStdString(dir.file("gone.sqlite")), *shown));
  EXPECT_TRUE(said.startsWith(QString("cannot follow run %1 live: ").arg(id)))
      << said.toStdString();
  EXPECT_FALSE(follower.following());
}

}  // namespace
}  // namespace ps::ui
