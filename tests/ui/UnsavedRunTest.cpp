// A simulated run reaches the window from memory before it is in the file: the timeline shows it
// while another writer holds the file, the history lists it as "saving" until its rows are
// committed (then with the file's id, from which it reloads identically), and a save that fails
// says so and keeps the run on screen.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTest>

#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "trace/store/TraceReader.h"
#include "ui/MainWindow.h"
#include "ui/PlanPanel.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

// Another process's write transaction on the file: the window's save waits behind it.
class WriteLock {
 public:
  explicit WriteLock(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  ~WriteLock() { release(); }
  void release() {
    if (!db_) return;
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
  }

 private:
  sqlite3* db_ = nullptr;
};

runtime::RunPlanRequest gpipe(int microbatches) {
  runtime::RunPlanRequest request;
  request.backend = runtime::Backend::Sim;
  request.spec.schedule = "gpipe";
  request.spec.stages = 3;
  request.spec.microbatches = microbatches;
  return request;
}

QStringList historyTexts(const MainWindow& w) {
  QStringList texts;
  const auto* list = w.findChild<QListWidget*>("runHistory");
  for (int i = 0; i < list->count(); ++i)
    texts << list->item(i)->text();
  return texts;
}

void waitUntilShown(const MainWindow& w) {
  for (int i = 0; i < 3000 && w.runBusy(); ++i)
    QTest::qWait(10);
}

TEST(UnsavedRun, IsShownWhileTheFileIsBusyAndSavedOnceItIsFree) {
  test::TempDir dir;
  const std::string path = dir.file("busy.sqlite");
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(path)));
  const trace::RunTrace* demo = w.timeline()->run();
  WriteLock lock(path);
  w.runRequest(gpipe(5));
  waitUntilShown(w);
  ASSERT_FALSE(w.runBusy());
  // On screen although nothing could be written yet.
  const trace::RunTrace* shown = w.timeline()->run();
  ASSERT_NE(shown, nullptr);
  EXPECT_NE(shown, demo);
  EXPECT_EQ(shown->info.num_microbatches, 5);
  EXPECT_EQ(w.savesPending(), 1);
  EXPECT_EQ(test::runsIn(path).size(), 1u);
  const QStringList listed = historyTexts(w);
  ASSERT_EQ(listed.size(), 2);
  EXPECT_TRUE(listed[1].endsWith("[saving]")) << listed[1].toStdString();
  EXPECT_TRUE(listed[1].startsWith("·")) << listed[1].toStdString();

  lock.release();
  test_window::waitForRun(w);
  EXPECT_EQ(w.savesPending(), 0);
  const auto runs = test::runsIn(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].status, trace::RunStatus::Complete);
  // The same object on screen, now with the file's id; the file gives the same ops back.
  EXPECT_EQ(w.timeline()->run(), shown);
  EXPECT_EQ(shown->info.id, runs[1].id);
  const QStringList saved = historyTexts(w);
  ASSERT_EQ(saved.size(), 2);
  EXPECT_FALSE(saved[1].contains("[")) << saved[1].toStdString();
  EXPECT_TRUE(saved[1].startsWith(QString::number(runs[1].id))) << saved[1].toStdString();
  // The explanation followed the picture: the timeline and the Stats dock have it.
  EXPECT_NE(w.timeline()->explanation(), nullptr);
  const QString stats = w.findChild<QPlainTextEdit*>("reportView")->toPlainText();
  EXPECT_FALSE(stats.contains("being worked out")) << stats.toStdString();
  EXPECT_TRUE(stats.contains("critical path")) << stats.toStdString();
  auto reread = trace::loadRunFromFile(path, runs[1].id);
  ASSERT_TRUE(reread.ok()) << reread.error();
  EXPECT_EQ(reread->opCount(), shown->opCount());
  EXPECT_EQ(reread->timeExtent(), shown->timeExtent());
}

TEST(UnsavedRun, ASaveThatFailsSaysSoAndTheRunStaysOnScreen) {
  test::TempDir dir;
  const std::string path = dir.file("locked.sqlite");
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(path)));
  WriteLock lock(path);  // held past the store's 5 s busy timeout
  w.runRequest(gpipe(6));
  test_window::waitForRun(w);
  EXPECT_EQ(w.savesPending(), 0);
  const trace::RunTrace* shown = w.timeline()->run();
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ(shown->info.num_microbatches, 6);
  EXPECT_TRUE(w.lastError().startsWith("the run was not saved: ")) << w.lastError().toStdString();
  const QStringList listed = historyTexts(w);
  ASSERT_EQ(listed.size(), 2);
  EXPECT_TRUE(listed[1].contains("[not saved: ")) << listed[1].toStdString();
  lock.release();
  EXPECT_EQ(test::runsIn(path).size(), 1u);
  // The file's own run can still be selected next to it.
  ASSERT_TRUE(w.showRun(test::runsIn(path)[0].id));
  EXPECT_NE(w.timeline()->run(), shown);
}

// Typing "50" into a knob with Rerun on change: "5" runs at once and its run is shown while
// "0" is already typed; the knob keeps 50 and the burst's last run is the one with 50 Gb/s.
TEST(UnsavedRun, KeysTypedWhileABurstsFirstRunArrivesAreKept) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("typing.sqlite"))));
  w.findChild<QCheckBox*>("rerunCheck")->setChecked(true);
  auto* link = w.findChild<QDoubleSpinBox*>("linkSpin");
  ASSERT_NE(link, nullptr);
  link->setFocus();
  link->selectAll();
  QTest::keyClick(link, Qt::Key_5);
  ASSERT_TRUE(w.runBusy()) << "the first key of a burst runs at once";
  QTest::keyClick(link, Qt::Key_0);
  waitUntilShown(w);  // the run of 5 Gb/s arrives while 50 is typed
  EXPECT_DOUBLE_EQ(link->value(), 50.0);
  QTest::qWait(PlanPanel::kRerunDelayMs + 100);
  test_window::waitForRun(w);
  EXPECT_DOUBLE_EQ(link->value(), 50.0);
  const trace::RunTrace* shown = w.timeline()->run();
  ASSERT_NE(shown, nullptr);
  EXPECT_NE(shown->info.config_json.find("\"link_gbps\":50"), std::string::npos)
      << shown->info.config_json;
}

}  // namespace
}  // namespace ps::ui
