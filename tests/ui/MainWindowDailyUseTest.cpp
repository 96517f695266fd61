// The app as a daily tool (issue 11): no lost work, what you see is what reruns, a real
// comparison, a window that fits 1280×720, and the small defects found by using it.

#include <gtest/gtest.h>

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTest>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/MemoryView.h"
#include "ui/PlanPanel.h"
#include "ui/SessionFiles.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using test_window::waitForRun;

// Appends a run of `request` and waits for it.
void run(MainWindow& w, const runtime::RunPlanRequest& request) {
  w.runRequest(request);
  waitForRun(w);
}

runtime::RunPlanRequest simRequest(int microbatches) {
  runtime::RunPlanRequest r;
  r.spec.schedule = "1f1b";
  r.spec.stages = 4;
  r.spec.microbatches = microbatches;
  r.spec.uniform.actMb = 1;
  r.backend = runtime::Backend::Sim;
  return r;
}

QListWidget* history(const MainWindow& w) {
  return w.findChild<QListWidget*>("runHistory");
}

// Defect 1: runs made without a file survive quitting, and Open Recent offers no dead path.
TEST(DailyUse, TheScratchSessionKeepsRunsAcrossQuits) {
  QFile::remove(scratchSessionPath());
  {
    MainWindow w;
    ASSERT_TRUE(w.openScratchSession()) << w.lastError().toStdString();
    EXPECT_EQ(history(w)->count(), 1) << "a new session starts with the demo";
    run(w, simRequest(12));
    ASSERT_EQ(history(w)->count(), 2) << w.lastError().toStdString();
    w.close();
  }
  MainWindow again;
  ASSERT_TRUE(again.openScratchSession()) << again.lastError().toStdString();
  EXPECT_EQ(history(again)->count(), 2) << "the run made before quitting is still there";
  EXPECT_TRUE(isScratchSession(again.currentFile()));
}

TEST(DailyUse, OpenRecentNeverOffersAFileThatIsGone) {
  test::TempDir dir;
  const QString kept = QString::fromStdString(dir.file("kept.sqlite"));
  const QString gone = QString::fromStdString(dir.file("gone.sqlite"));
  {
    MainWindow w;
    ASSERT_TRUE(w.openDemo(gone));
    ASSERT_TRUE(w.openDemo(kept));
  }
  QFile::remove(gone);
  MainWindow w;
  auto* recent = w.findChild<QMenu*>("recentMenu");
  ASSERT_NE(recent, nullptr);
  QStringList offered;
  for (QAction* a : recent->actions())
    offered << a->text();
  EXPECT_TRUE(offered.contains(QFileInfo(kept).canonicalFilePath()))
      << offered.join(", ").toStdString();
  for (const QString& path : offered)
    EXPECT_TRUE(QFileInfo(path).isFile()) << path.toStdString();
}

// Defect 2: selecting a run restores every knob, so Run reruns exactly it.
TEST(DailyUse, SelectingARunRestoresItsLinksAndBackendSoRunRerunsIt) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("knobs.sqlite"))));
  auto slow = simRequest(8);
  slow.spec.uniform.linkGbps = 10;
  slow.spec.uniform.linkLatencyUs = 5;
  slow.spec.uniform.actMb = 4;
  run(w, slow);
  ASSERT_EQ(history(w)->count(), 2) << w.lastError().toStdString();
  auto* panel = w.findChild<PlanPanel*>("planPanel");
  ASSERT_NE(panel, nullptr);
  w.showRun(1);  // the demo: free links
  EXPECT_FALSE(panel->request().spec.uniform.linkGbps.has_value());
  w.showRun(2);
  const auto shown = panel->request();
  ASSERT_TRUE(shown.spec.uniform.linkGbps.has_value());
  EXPECT_DOUBLE_EQ(*shown.spec.uniform.linkGbps, 10.0);
  EXPECT_DOUBLE_EQ(shown.spec.uniform.linkLatencyUs, 5.0);
  EXPECT_DOUBLE_EQ(shown.spec.uniform.actMb, 4.0);
  EXPECT_EQ(shown.backend, runtime::Backend::Sim);
  // Pressing Run reruns the same plan: same step time as the run shown.
  auto* report = w.findChild<QPlainTextEdit*>("reportView");
  const QString before = report->toPlainText();
  const QString step = before.mid(before.indexOf("step time"), 40).section('\n', 0, 0);
  w.show();
  QTest::mouseClick(w.findChild<QPushButton*>("runButton"), Qt::LeftButton);
  waitForRun(w);
  ASSERT_EQ(history(w)->count(), 3) << w.lastError().toStdString();
  EXPECT_TRUE(report->toPlainText().contains(step)) << step.toStdString();
}

TEST(DailyUse, AnImportedRunSaysItCannotBeRerun) {
  test::TempDir dir;
  const std::string path = dir.file("imported.sqlite");
  trace::RunHeader header = test::simpleHeader(2, "nsys: rank0.sqlite +1");
  header.info.source = "nsys";
  header.info.config_json = R"({"import":{"format":"nsys","files":["rank0.sqlite"]}})";
  trace::TraceBatch batch;
  batch.ops.push_back(test::compute(0, trace::OpKind::F, 0, 0, 100));
  test::writeRun(path, header, batch);
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();
  auto* notice = w.findChild<QLabel*>("planNotice");
  ASSERT_NE(notice, nullptr);
  EXPECT_FALSE(notice->isHidden());
  EXPECT_TRUE(notice->text().contains("nsys")) << notice->text().toStdString();
  EXPECT_FALSE(w.findChild<QPushButton*>("runButton")->isEnabled());
  // Defect 11: the stats say which ops the figures cover.
  EXPECT_TRUE(w.findChild<QPlainTextEdit*>("reportView")->toPlainText().contains("figures cover"));
}

// Defect 3: two runs selected → two labelled timelines of equal height on one axis; the other
// panes follow the primary run; the table goes with the selection.
TEST(DailyUse, ComparingTwoRunsShowsBothLabelledAtEqualHeight) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("cmp.sqlite"))));
  run(w, simRequest(16));
  ASSERT_EQ(history(w)->count(), 2);
  w.resize(1280, 720);
  w.show();
  QTest::qWait(20);
  auto* list = history(w);
  list->setCurrentRow(0, QItemSelectionModel::ClearAndSelect);
  list->setCurrentRow(1, QItemSelectionModel::Select);
  QTest::qWait(20);
  auto* a = w.timeline();
  auto* b = w.findChild<TimelineView*>("compareTimelineView");
  ASSERT_TRUE(b && b->isVisible());
  EXPECT_GT(b->height(), 100);
  EXPECT_NEAR(a->height(), b->height(), 4);
  EXPECT_EQ(a->visibleRange().start, b->visibleRange().start);
  EXPECT_EQ(a->visibleRange().end, b->visibleRange().end);
  auto* titleA = w.findChild<QLabel*>("timelineTitle");
  auto* titleB = w.findChild<QLabel*>("compareTimelineTitle");
  ASSERT_TRUE(titleA && titleB);
  // The run selected first is A, the one added to the selection B (issue 34 item 16).
  EXPECT_TRUE(titleA->text().startsWith("A · run 1")) << titleA->text().toStdString();
  EXPECT_TRUE(titleB->text().startsWith("B · run 2")) << titleB->text().toStdString();
  EXPECT_EQ(a->run()->info.id, 1);
  auto* memory = w.findChild<MemoryView*>();
  ASSERT_NE(memory, nullptr);
  auto* compareDock = w.findChild<QDockWidget*>("compareDock");
  EXPECT_TRUE(compareDock->isVisible());
  EXPECT_FALSE(compareDock->visibleRegion().isEmpty()) << "the Compare tab is the one raised";
  // Back to one run: the second timeline and the table go away.
  list->setCurrentRow(0, QItemSelectionModel::ClearAndSelect);
  QTest::qWait(20);
  EXPECT_FALSE(b->isVisible());
  EXPECT_FALSE(compareDock->isVisible());
  EXPECT_EQ(a->run()->info.id, 1);
  // Another file: no stale comparison either.
  list->setCurrentRow(0, QItemSelectionModel::ClearAndSelect);
  list->setCurrentRow(1, QItemSelectionModel::Select);
  QTest::qWait(20);
  ASSERT_TRUE(compareDock->isVisible());
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("other.sqlite"))));
  EXPECT_FALSE(compareDock->isVisible());
  EXPECT_FALSE(b->isVisible());
}

// Defect 4: the window fits a 1280×720 screen with its status bar and bottom docks on it.
TEST(DailyUse, TheWindowFitsA1280By720Screen) {
  test::TempDir dir;
  // As on a first start: no size saved by an earlier window of this process.
  QSettings().remove("mainWindow/geometry");
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("fit.sqlite"))));
  EXPECT_LE(w.minimumSizeHint().height(), 720 - 60);
  // A screen without room for 1400×820 and a frame (the offscreen one is 800×600): the window
  // asks for less than the screen and opens maximised, its status bar on the screen.
  const QSize screen = w.screen()->availableGeometry().size();
  if (screen.height() < 820 + 48) {
    EXPECT_TRUE(w.opensMaximized());
    EXPECT_LT(w.height(), screen.height());
  }
  w.resize(1280, 690);  // 720 less a title bar
  w.show();
  QTest::qWait(20);
  EXPECT_LE(w.height(), 690);
  EXPECT_LE(w.statusBar()->geometry().bottom(), w.height());
  auto* stats = w.findChild<QDockWidget*>("statsDock");
  ASSERT_TRUE(stats->isVisible());
  EXPECT_LE(stats->geometry().bottom(), w.statusBar()->geometry().top());
  EXPECT_GT(w.timeline()->height(), 150);
  if (const char* shots = std::getenv("PIPESCOPE_UI_SHOTS"))
    w.grab().save(QString(shots) + "/window-1280x720.png");
}

// Defect 6: same-named runs get labels that say what differs.
TEST(DailyUse, HistoryLabelsSayWhatDiffers) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("labels.sqlite"))));
  auto linked = simRequest(8);
  linked.spec.uniform.linkGbps = 10;
  run(w, linked);
  auto layered = simRequest(8);
  layered.spec.layers = 16;
  run(w, layered);
  auto* list = history(w);
  ASSERT_EQ(list->count(), 3);
  QSet<QString> texts;
  for (int i = 0; i < 3; ++i)
    texts.insert(list->item(i)->text().section("  ", 1));
  EXPECT_EQ(texts.size(), 3) << "three distinct labels";
  EXPECT_TRUE(list->item(1)->text().contains("10 Gb/s")) << list->item(1)->text().toStdString();
  EXPECT_TRUE(list->item(2)->text().contains("16")) << list->item(2)->text().toStdString();
  EXPECT_FALSE(list->item(1)->toolTip().isEmpty());
}

// Defect 8: a failed run's message is cleared by the next successful run.
TEST(DailyUse, ASuccessfulRunClearsTheLastError) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("err.sqlite"))));
  auto bad = simRequest(8);
  bad.spec.uniform.fwdUs = -1;
  run(w, bad);
  EXPECT_FALSE(w.statusBar()->currentMessage().isEmpty());
  run(w, simRequest(10));
  ASSERT_EQ(history(w)->count(), 2) << w.lastError().toStdString();
  EXPECT_FALSE(w.statusBar()->currentMessage().contains("fwd"))
      << w.statusBar()->currentMessage().toStdString();
  auto* error = w.findChild<QLabel*>("planError");
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(error->isHidden() || error->text().isEmpty());
}

// Defect 12: docks can be reopened; Open on an Nsight export points to Import; exports say
// where they went and carry a title.
TEST(DailyUse, EveryDockCanBeReopenedFromTheViewMenu) {
  MainWindow w;
  QStringList items;
  for (QAction* menu : w.menuBar()->actions())
    if (menu->text().contains("View"))
      for (QAction* a : menu->menu()->actions())
        items << a->text();
  for (const char* dock : {"Plan", "Run history", "Stats", "Links", "Compare"})
    EXPECT_TRUE(items.contains(dock)) << dock << " in " << items.join(", ").toStdString();
}

TEST(DailyUse, OpeningAnNsightExportPointsToImport) {
  test::TempDir dir;
  const std::string path = dir.file("report.sqlite");
  // Any SQLite file without PipeScope's meta table, as an Nsight Systems export is.
  ASSERT_EQ(
      test::runCommand({"/usr/bin/sqlite3", path, "CREATE TABLE StringIds(id, value);"}).exit_code,
      0);
  MainWindow w;
  EXPECT_FALSE(w.openTrace(QString::fromStdString(path), false));
  EXPECT_TRUE(w.lastError().contains("Import traces")) << w.lastError().toStdString();
}

TEST(DailyUse, ExportedTimelineHasATitleAndTheStatusBarSaysWhere) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("png.sqlite"))));
  w.resize(1200, 700);
  w.show();
  const QString png = QString::fromStdString(dir.file("t.png"));
  ASSERT_TRUE(w.exportTimeline(png));
  const QImage image(png);
  ASSERT_FALSE(image.isNull());
  EXPECT_GT(image.height(), w.timeline()->height() + 20) << "title and legend around it";
  EXPECT_TRUE(w.statusBar()->currentMessage().contains(png));
}

}  // namespace
}  // namespace ps::ui

namespace ps::ui {
namespace {

// The memory plot and the timelines' plots share one time axis: the same width on screen.
TEST(DailyUse, MemoryAndTimelinePlotsLineUp) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("align.sqlite"))));
  w.resize(1280, 720);
  w.show();
  QTest::qWait(20);
  auto* memory = w.findChild<MemoryView*>();
  ASSERT_NE(memory, nullptr);
  const QPoint timelineLeft = w.timeline()->mapTo(&w, QPoint(0, 0));
  const QPoint memoryLeft = memory->mapTo(&w, QPoint(0, 0));
  EXPECT_EQ(timelineLeft.x(), memoryLeft.x());
  EXPECT_EQ(w.timeline()->width(), memory->width());
}

// A run's op labels are its own: "3·1" on an interleaved run, "3" on a 1F1B run, whichever was
// shown before (the label cache once kept the texts of the run shown first).
TEST(DailyUse, OpLabelsFollowTheRunShown) {
  test::TempDir dir;
  const QString file = QString::fromStdString(dir.file("labels.sqlite"));
  auto grabTimeline = [](MainWindow& w) {
    QTest::qWait(20);
    return w.timeline()->grab().toImage();
  };
  MainWindow w;
  ASSERT_TRUE(w.openDemo(file));
  w.resize(1280, 720);
  w.show();
  const QImage oneFirst = grabTimeline(w);
  auto interleaved = simRequest(8);
  interleaved.spec.schedule = "interleaved-1f1b";
  interleaved.spec.chunks = 2;
  run(w, interleaved);
  ASSERT_EQ(history(w)->count(), 2) << w.lastError().toStdString();
  const QImage interleavedSecond = grabTimeline(w);
  MainWindow other;  // opens on the latest run: the interleaved one first
  ASSERT_TRUE(other.openTrace(file, false));
  other.resize(1280, 720);
  other.show();
  const QImage interleavedFirst = grabTimeline(other);
  ASSERT_TRUE(other.showRun(1));
  const QImage oneSecond = grabTimeline(other);
  EXPECT_NE(oneFirst, interleavedFirst);
  EXPECT_TRUE(oneFirst == oneSecond) << "1F1B labels after an interleaved run";
  EXPECT_TRUE(interleavedFirst == interleavedSecond) << "interleaved labels after a 1F1B run";
}

}  // namespace
}  // namespace ps::ui
