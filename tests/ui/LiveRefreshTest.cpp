// The window follows its trace file while another writer appends to it (issue 12): a new run
// shows in the history within about a second with nothing done by the user, the run on screen
// is not reloaded for it, a run shown while running is reloaded once it completes, a deleted run
// gives way to another, a removed or replaced file leaves the window as it was.

#include <gtest/gtest.h>

#include <QListWidget>
#include <QStatusBar>
#include <QTest>

#include <filesystem>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"
#include "ui/MainWindow.h"
#include "ui/RunHistoryPanel.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

trace::TraceBatch smallBatch(std::int64_t shift = 0) {
  trace::TraceBatch batch;
  for (int r = 0; r < 2; ++r) {
    batch.ops.push_back(
        test::compute(r, trace::OpKind::F, 0, shift + 100 * r, shift + 100 * r + 90));
    batch.ops.push_back(
        test::compute(r, trace::OpKind::B, 0, shift + 400 - 100 * r, shift + 590 - 100 * r));
  }
  return batch;
}

QString historyText(const MainWindow& w) {
  auto* list = w.findChild<QListWidget*>("runHistory");
  QStringList rows;
  for (int i = 0; list && i < list->count(); ++i)
    rows << list->item(i)->text();
  return rows.join("\n");
}

void liveShot(QWidget& w, const char* name) {
  const QByteArray dir = qgetenv("PIPESCOPE_UI_SHOTS");
  if (!dir.isEmpty()) w.grab().save(QString::fromUtf8(dir) + "/" + name + ".png");
}

TEST(LiveRefresh, RunsWrittenByAnotherWriterShowWithoutReloadingTheShownOne) {
  test::TempDir dir;
  const std::string path = dir.file("live.sqlite");
  const std::int64_t first = test::writeRun(path, test::simpleHeader(2, "first"), smallBatch());
  MainWindow w;
  w.resize(1200, 700);
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();
  auto* history = w.findChild<RunHistoryPanel*>("runHistoryPanel");
  ASSERT_NE(history, nullptr);
  ASSERT_EQ(history->count(), 1);
  const trace::RunTrace* shown = w.timeline()->run();

  // Another connection (as another process would) appends a complete run.
  const std::int64_t second = test::writeRun(path, test::simpleHeader(2, "second"), smallBatch());
  EXPECT_TRUE(QTest::qWaitFor([&] { return history->count() == 2; }, 1500))
      << historyText(w).toStdString();
  EXPECT_EQ(history->currentRun(), first) << "the user's selection stays";
  EXPECT_EQ(w.timeline()->run(), shown) << "the run on screen was not reloaded";
  EXPECT_TRUE(w.statusBar()->currentMessage().contains(QString("run %1 added").arg(second)))
      << w.statusBar()->currentMessage().toStdString();

  // A run still being written shows as running; shown, it is reloaded once it completes.
  auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store) << store.error();
  auto writer = trace::TraceWriter::begin(*store, test::simpleHeader(2, "third"));
  ASSERT_TRUE(writer) << writer.error();
  const std::int64_t third = writer->runId();
  ASSERT_TRUE(QTest::qWaitFor([&] { return history->count() == 3; }, 1500));
  EXPECT_TRUE(historyText(w).contains("[running]")) << historyText(w).toStdString();
  ASSERT_TRUE(w.showRun(third));
  EXPECT_EQ(w.timeline()->run()->info.status, trace::RunStatus::Running);
  liveShot(w, "live-refresh-running");
  ASSERT_TRUE(writer->write(smallBatch(1000)));
  ASSERT_TRUE(writer->finish(trace::RunStatus::Complete));
  EXPECT_TRUE(QTest::qWaitFor(
      [&] { return w.timeline()->run()->info.status == trace::RunStatus::Complete; }, 1500));
  EXPECT_EQ(w.timeline()->run()->info.id, third);
  EXPECT_EQ(w.timeline()->run()->opCount(), 4u);
  EXPECT_FALSE(historyText(w).contains("[running]")) << historyText(w).toStdString();
  liveShot(w, "live-refresh-complete");

  // The run on screen is deleted: the latest one left takes its place.
  ASSERT_TRUE(store->deleteRun(third));
  EXPECT_TRUE(QTest::qWaitFor([&] { return history->count() == 2; }, 1500));
  EXPECT_EQ(history->currentRun(), second);
  EXPECT_EQ(w.timeline()->run()->info.id, second);
}

TEST(LiveRefresh, RemovedOrReplacedFileLeavesTheWindowAsItWas) {
  test::TempDir dir;
  const std::string path = dir.file("gone.sqlite");
  test::writeRun(path, test::simpleHeader(2, "only"), smallBatch());
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false));
  auto* history = w.findChild<RunHistoryPanel*>("runHistoryPanel");
  const trace::RunTrace* shown = w.timeline()->run();
  std::filesystem::remove(path);
  EXPECT_TRUE(QTest::qWaitFor(
      [&] { return w.statusBar()->currentMessage().contains("was removed"); }, 1500));
  EXPECT_EQ(w.statusBar()->currentMessage().toStdString(),
            path + " was removed: the run on screen stays until you open another");
  test::writeFile(path, std::string(4096, 'q'));  // replaced by something that is no trace
  EXPECT_TRUE(QTest::qWaitFor(
      [&] { return w.statusBar()->currentMessage().contains("not a SQLite database"); }, 1500))
      << w.statusBar()->currentMessage().toStdString();
  EXPECT_EQ(w.statusBar()->currentMessage().toStdString(),
            path + ": not a SQLite database (the file changed; the run on screen stays)");
  EXPECT_EQ(history->count(), 1);
  EXPECT_EQ(w.timeline()->run(), shown);
  w.grab();
}

}  // namespace
}  // namespace ps::ui
