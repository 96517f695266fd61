#include <gtest/gtest.h>

#include <QPlainTextEdit>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "tests/ui/WindowTestUtil.h"
#include "trace/Synthetic.h"
#include "ui/MainWindow.h"
#include "ui/PlanPanel.h"
#include "ui/timeline/TimelineView.h"

#include <QApplication>
#include <QMouseEvent>
#include <QSet>
#include <QTest>

namespace ps::ui {
namespace {

using test_window::waitForRun;

TEST(MainWindow, OpensATraceAndShowsItsReport) {
  test::TempDir dir;
  const std::string path = dir.file("ok.sqlite");
  trace::SyntheticGpipe g;
  test::writeRun(path, trace::syntheticGpipeHeader(g), trace::syntheticGpipeStep(g, 0));
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();
  auto* view = w.findChild<QPlainTextEdit*>("reportView");
  ASSERT_NE(view, nullptr);
  EXPECT_TRUE(view->toPlainText().contains("27.27 %")) << view->toPlainText().toStdString();
}

TEST(MainWindow, CorruptFileGivesTheStoresError) {
  test::TempDir dir;
  const std::string path = dir.file("bad.sqlite");
  test::writeFile(path, std::string(4096, 'q'));
  MainWindow w;
  EXPECT_FALSE(w.openTrace(QString::fromStdString(path), false));
  EXPECT_EQ(w.lastError().toStdString(), path + ": not a SQLite database");
}

}  // namespace
}  // namespace ps::ui

namespace ps::ui {
namespace {

TEST(MainWindow, DemoRendersATimelineWithBubblesAndOps) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("demo.sqlite"))))
      << w.lastError().toStdString();
  auto* view = w.findChild<QPlainTextEdit*>("reportView");
  ASSERT_NE(view, nullptr);
  // 1F1B, p = 4, m = 8, uniform costs, free links: (p-1)/(m+p-1) = 3/11.
  EXPECT_TRUE(view->toPlainText().contains("bubble ratio   27.27 %"))
      << view->toPlainText().toStdString();
  w.resize(1200, 700);
  const QImage image = w.grab().toImage();
  auto* timeline = w.findChild<TimelineView*>("timelineView");
  ASSERT_NE(timeline, nullptr);
  EXPECT_GT(timeline->drawnItems(), 4u * 16u) << "every F and B of every rank";
  // Not blank: the timeline area holds the kind colours and the bubble shade.
  const QImage area = timeline->grab().toImage();
  QSet<QRgb> colours;
  for (int y = 0; y < area.height(); y += 3)
    for (int x = 0; x < area.width(); x += 3)
      colours.insert(area.pixel(x, y));
  EXPECT_GT(colours.size(), 6);
  EXPECT_FALSE(image.isNull());
}

TEST(TimelineView, DrawsAboutOneItemPerPixelForAMillionOps) {
  auto run = std::make_shared<trace::RunTrace>();
  run->info.num_ranks = 2;
  run->ranks.resize(2);
  for (int r = 0; r < 2; ++r) {
    auto& lane = run->ranks[r].lane(trace::Lane::Compute);
    for (int k = 0; k < 500000; ++k)
      lane.push(10LL * k, 10LL * k + 6, trace::OpKind::F, r, k, 0, -1, -1, -1);
  }
  TimelineView view;
  view.resize(1000, 200);
  view.setRun(run);
  (void)view.grab();
  EXPECT_LE(view.drawnItems(), 2u * 1000u);
  EXPECT_GT(view.drawnItems(), 0u);
}

}  // namespace
}  // namespace ps::ui

#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

namespace ps::ui {
namespace {

TEST(MainWindow, ChangingMicrobatchesAndPressingRunAddsARunWithTheClosedFormBubble) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("live.sqlite"))));
  auto* history = w.findChild<QListWidget*>("runHistory");
  auto* microbatches = w.findChild<QSpinBox*>("microbatchesSpin");
  auto* stages = w.findChild<QSpinBox*>("stagesSpin");
  auto* run = w.findChild<QPushButton*>("runButton");
  auto* report = w.findChild<QPlainTextEdit*>("reportView");
  ASSERT_TRUE(history && microbatches && stages && run && report);
  ASSERT_EQ(history->count(), 1);
  stages->setValue(4);
  microbatches->setValue(16);
  w.show();
  QTest::mouseClick(run, Qt::LeftButton);
  waitForRun(w);
  ASSERT_EQ(history->count(), 2) << w.lastError().toStdString();
  // p = 4, m = 16: (p-1)/(m+p-1) = 3/19 = 15.79 %.
  EXPECT_TRUE(report->toPlainText().contains("bubble ratio   15.79 %"))
      << report->toPlainText().toStdString();
  EXPECT_TRUE(report->toPlainText().contains("micro-batches 16"));
  EXPECT_TRUE(report->toPlainText().contains("paper bubble   15.79 %  (p-1)/(m+p-1)"))
      << report->toPlainText().toStdString();
}

TEST(MainWindow, AnImpossiblePlanReportsItsConstraintAndAddsNothing) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("bad.sqlite"))));
  auto* history = w.findChild<QListWidget*>("runHistory");
  runtime::RunPlanRequest request;
  request.backend = runtime::Backend::Sim;
  request.spec.schedule = "interleaved-1f1b";
  request.spec.stages = 4;
  request.spec.microbatches = 6;
  request.spec.chunks = 2;
  w.runRequest(request);
  waitForRun(w);
  EXPECT_EQ(history->count(), 1);
  EXPECT_TRUE(w.lastError().contains("multiple of p")) << w.lastError().toStdString();
}

}  // namespace
}  // namespace ps::ui

#include "ui/StageEditor.h"

namespace ps::ui {
namespace {

TEST(MainWindow, DraggingAStageBoundaryRerunsWithTheNewCut) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("drag.sqlite"))));
  // 8 layers on 4 stages: two per stage, boundaries 2,4,6.
  w.findChild<QSpinBox*>("layersSpin")->setValue(8);
  w.show();
  QTest::mouseClick(w.findChild<QPushButton*>("runButton"), Qt::LeftButton);
  waitForRun(w);
  auto* history = w.findChild<QListWidget*>("runHistory");
  ASSERT_EQ(history->count(), 2) << w.lastError().toStdString();
  auto* editor = w.findChild<StageEditor*>("stageEditor");
  ASSERT_NE(editor, nullptr);
  ASSERT_EQ(editor->boundaries(), (std::vector<int>{2, 4, 6}));
  // Drag the first handle one layer to the right.
  const int y = editor->height() - 10;
  const int from = editor->handleX(0);
  const int to = from + editor->handleX(1) - editor->handleX(0) - (editor->handleX(1) - from) / 2;
  QTest::mousePress(editor, Qt::LeftButton, {}, QPoint(from, y));
  QMouseEvent move(QEvent::MouseMove, QPointF(to, y), editor->mapToGlobal(QPointF(to, y)),
                   Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(editor, &move);
  QTest::mouseRelease(editor, Qt::LeftButton, {}, QPoint(to, y));
  waitForRun(w);
  ASSERT_EQ(history->count(), 3) << w.lastError().toStdString();
  EXPECT_EQ(editor->boundaries(), (std::vector<int>{3, 4, 6}));
  auto* report = w.findChild<QPlainTextEdit*>("reportView");
  // Stage 0 now holds 3 layers: it is the slowest and the step is longer than the balanced one.
  EXPECT_FALSE(report->toPlainText().contains("bubble ratio   27.27 %"));
}

}  // namespace
}  // namespace ps::ui

#include <QFile>

namespace ps::ui {
namespace {

TEST(MainWindow, ExportsTimelineAsPngAndSvgAndStatsAsCsv) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("x.sqlite"))));
  w.resize(1200, 700);
  const QString png = QString::fromStdString(dir.file("t.png"));
  const QString svg = QString::fromStdString(dir.file("t.svg"));
  const QString csv = QString::fromStdString(dir.file("s.csv"));
  ASSERT_TRUE(w.exportTimeline(png));
  ASSERT_TRUE(w.exportTimeline(svg));
  ASSERT_TRUE(w.exportStatsCsv(csv));
  EXPECT_FALSE(QImage(png).isNull());
  const std::string svgText = test::readFile(svg.toStdString());
  EXPECT_NE(svgText.find("<svg"), std::string::npos);
  EXPECT_NE(svgText.find("rect"), std::string::npos);
  const std::string csvText = test::readFile(csv.toStdString());
  EXPECT_NE(csvText.find("rank,busy_ns,bubble_ratio,peak_memory_bytes"), std::string::npos);
  EXPECT_NE(csvText.find("0.2727272727"), std::string::npos) << csvText;
}

}  // namespace
}  // namespace ps::ui

#include <QAbstractItemModelTester>
#include <QTableView>

#include "ui/CompareModel.h"
#include "ui/LinkTableModel.h"

namespace ps::ui {
namespace {

TEST(ItemModels, LinkAndCompareModelsPassTheModelTester) {
  trace::SyntheticGpipe g;
  auto a = trace::analyzeRun(
      test::roundTrip(trace::syntheticGpipeHeader(g), trace::syntheticGpipeStep(g, 0)));
  g.microbatches = 16;
  auto b = trace::analyzeRun(
      test::roundTrip(trace::syntheticGpipeHeader(g), trace::syntheticGpipeStep(g, 0)));
  LinkTableModel links;
  QAbstractItemModelTester linkTester(&links,
                                      QAbstractItemModelTester::FailureReportingMode::Fatal);
  links.setAnalysis(a);
  EXPECT_EQ(links.rowCount(), 6);
  EXPECT_EQ(links.data(links.index(0, 0)).toString(), "0 → 1");
  CompareModel compare;
  QAbstractItemModelTester compareTester(&compare,
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
  compare.setRuns(a, b);
  ASSERT_GE(compare.rowCount(), 4);
  EXPECT_EQ(compare.data(compare.index(1, 0)).toString(), "bubble");
  EXPECT_EQ(compare.data(compare.index(1, 1)).toString(), "27.27 %");
  EXPECT_EQ(compare.data(compare.index(1, 2)).toString(), "15.79 %");
  EXPECT_EQ(compare.data(compare.index(1, 3)).toString(), "-11.48 points");
}

TEST(MainWindow, ComparingTwoRunsStacksTheirTimelines) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("cmp.sqlite"))));
  w.findChild<QSpinBox*>("microbatchesSpin")->setValue(12);
  w.show();
  QTest::mouseClick(w.findChild<QPushButton*>("runButton"), Qt::LeftButton);
  waitForRun(w);
  ASSERT_EQ(w.findChild<QListWidget*>("runHistory")->count(), 2);
  ASSERT_TRUE(w.compareRuns(1, 2)) << w.lastError().toStdString();
  auto* second = w.findChild<TimelineView*>("compareTimelineView");
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(second->isVisible());
  EXPECT_EQ(second->visibleRange().start, w.timeline()->visibleRange().start);
  EXPECT_EQ(second->visibleRange().end, w.timeline()->visibleRange().end);
  auto* table = w.findChild<QTableView*>("compareTable");
  ASSERT_NE(table, nullptr);
  EXPECT_GE(table->model()->rowCount(), 4);
}

}  // namespace
}  // namespace ps::ui

namespace ps::ui {
namespace {

TEST(TimelineView, ClickingAnOpSelectsItAndFindsItsDependencies) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("sel.sqlite"))));
  w.resize(1400, 820);
  w.show();
  TimelineView* view = w.timeline();
  const auto* run = view->run();
  ASSERT_NE(run, nullptr);
  // Rank 2's first backward: B(2, 0) depends on B(3, 0) and on F(2, 0).
  const auto& lane = run->ranks[2].lane(trace::Lane::Compute);
  std::size_t b0 = 0;
  while (lane.kind[b0] != trace::OpKind::B)
    ++b0;
  const QRect r(
      TimelineView::kGutter +
          static_cast<int>(timeToPx(view->visibleRange(), view->width() - TimelineView::kGutter - 8,
                                    (lane.start[b0] + lane.end[b0]) / 2)),
      0, 1, 1);
  const int y = TimelineView::kAxis +
                2 * (TimelineView::kCompute + 2 * TimelineView::kComm + TimelineView::kRowGap) + 4 +
                10;
  QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(r.x(), y));
  ASSERT_TRUE(view->selection().valid());
  EXPECT_EQ(view->selection().rank, 2);
  EXPECT_EQ(view->selection().index, b0);
  const auto deps = view->selectionDependencies();
  ASSERT_EQ(deps.size(), 2u);
  EXPECT_EQ(deps[0].first, 3);  // B(3, 0)
  EXPECT_EQ(run->ranks[3].lane(trace::Lane::Compute).kind[deps[0].second], trace::OpKind::B);
  EXPECT_EQ(deps[1].first, 2);  // F(2, 0)
  EXPECT_EQ(lane.kind[deps[1].second], trace::OpKind::F);
  // Shift+drag zooms to the dragged range.
  const auto before = view->visibleRange();
  QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(300, 100));
  QMouseEvent move(QEvent::MouseMove, QPointF(500, 100), view->mapToGlobal(QPointF(500, 100)),
                   Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
  QApplication::sendEvent(view, &move);
  QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(500, 100));
  EXPECT_LT(view->visibleRange().end - view->visibleRange().start, (before.end - before.start) / 2);
}

}  // namespace
}  // namespace ps::ui

#include <QComboBox>
#include <QStandardItemModel>

#include "runtime/cuda/CudaBackend.h"

namespace ps::ui {
namespace {

TEST(MainWindow, SimulationsRunOnTheWorkerThreadAndArriveLater) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("async.sqlite"))));
  auto* history = w.findChild<QListWidget*>("runHistory");
  runtime::RunPlanRequest request;
  request.backend = runtime::Backend::Sim;
  request.spec.schedule = "gpipe";
  request.spec.stages = 2;
  request.spec.microbatches = 4;
  w.runRequest(request);
  // Nothing reaches the window before its event loop runs.
  EXPECT_TRUE(w.runBusy());
  EXPECT_EQ(history->count(), 1);
  waitForRun(w);
  EXPECT_FALSE(w.runBusy());
  EXPECT_EQ(history->count(), 2) << w.lastError().toStdString();
}

TEST(MainWindow, ACpuRunIsRecordedAndItsPlanKnobsAreShown) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("cpu.sqlite"))));
  w.runRequest(test_window::smallCpuRequest());
  waitForRun(w);
  auto* history = w.findChild<QListWidget*>("runHistory");
  ASSERT_EQ(history->count(), 2) << w.lastError().toStdString();
  EXPECT_TRUE(history->item(1)->text().contains("cpu")) << history->item(1)->text().toStdString();
  // The run's config_json nests the plan's knobs under "plan": the panel follows them.
  EXPECT_EQ(w.findChild<QSpinBox*>("stagesSpin")->value(), 2);
  EXPECT_EQ(w.findChild<QSpinBox*>("microbatchesSpin")->value(), 2);
}

TEST(PlanPanel, TheCudaBackendIsOfferedOnlyWithADeviceAndSaysWhyNot) {
  PlanPanel panel;
  auto* backend = panel.findChild<QComboBox*>("backendCombo");
  ASSERT_NE(backend, nullptr);
  auto* items = qobject_cast<QStandardItemModel*>(backend->model());
  ASSERT_NE(items, nullptr);
  ASSERT_EQ(items->rowCount(), 3);
  QStandardItem* cuda = items->item(2);
  const auto availability = runtime::cudaAvailability();
  EXPECT_EQ(cuda->isEnabled(), availability.available());
  if (!availability.available()) {
    EXPECT_EQ(cuda->toolTip().toStdString(), availability.reason);
    EXPECT_TRUE(cuda->text().startsWith("cuda — ")) << cuda->text().toStdString();
  }
}

}  // namespace
}  // namespace ps::ui
