// Fit plan in the app (issue 31 §3): an imported run has no plan to rerun until Fit plan fits
// one; the fitted plan's replay is listed as the import's child and compared with it; a dragged
// boundary on it is a what-if, also the import's child, and compared with the import (A).

#include <gtest/gtest.h>

#include <QAbstractItemModel>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableView>
#include <QTest>

#include "runtime/run/RunPlan.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/StageEditor.h"

namespace ps::ui {
namespace {

using test_window::waitForRun;

// A simulated 1F1B (P 4, M 8, 3 steps) written as if imported from Kineto: no config to rerun.
std::string importedRun(const test::TempDir& dir) {
  runtime::RunPlanRequest request;
  request.spec.schedule = "1f1b";
  request.spec.stages = 4;
  request.spec.microbatches = 8;
  request.spec.steps = 3;
  request.spec.uniform.actMb = 1;
  request.write = false;
  auto sim = runtime::runPlan(request, {});
  EXPECT_TRUE(sim.ok()) << sim.error();
  trace::TraceBatch batch;
  for (const runtime::SimRecord& r : runtime::allRecords(*sim->sim))
    batch.ops.push_back(runtime::toOpRecord(r));
  trace::RunHeader header = test::simpleHeader(4, "kineto: rank0.json +3");
  header.info.source = "kineto";
  header.info.config_json = R"({"import":{"format":"kineto","files":["rank0.json"]}})";
  const std::string path = dir.file("imported.sqlite");
  test::writeRun(path, header, batch);
  return path;
}

// Waits for the fit job and the run it starts.
void waitForHistory(const QListWidget* history, int rows) {
  for (int i = 0; i < 3000 && history->count() < rows; ++i)
    QTest::qWait(10);
}

TEST(FitPlanUi, FitThenDragABoundaryComparesWhatIfsWithTheImport) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(importedRun(dir)), false))
      << w.lastError().toStdString();
  w.resize(1280, 720);
  w.show();
  auto* fit = w.findChild<QPushButton*>("fitPlanButton");
  ASSERT_NE(fit, nullptr);
  ASSERT_FALSE(fit->isHidden());
  EXPECT_FALSE(w.findChild<QPushButton*>("runButton")->isEnabled());
  auto* history = w.findChild<QListWidget*>("runHistory");
  QTest::mouseClick(fit, Qt::LeftButton);
  waitForHistory(history, 2);
  waitForRun(w);
  ASSERT_EQ(history->count(), 2) << w.lastError().toStdString();
  EXPECT_TRUE(history->item(1)->text().contains("↳")) << history->item(1)->text().toStdString();
  EXPECT_TRUE(history->item(1)->text().contains("of run 1"));
  auto* table = w.findChild<QTableView*>("compareTable");
  ASSERT_NE(table, nullptr);
  EXPECT_TRUE(table->isVisible());
  EXPECT_TRUE(fit->isHidden());
  EXPECT_TRUE(w.findChild<QPushButton*>("runButton")->isEnabled());
  // A sim run replayed from a fitted sim run: the same step time (B / A = 1.000x).
  const QAbstractItemModel* model = table->model();
  EXPECT_EQ(model->headerData(1, Qt::Horizontal).toString(), "A: run 1");
  EXPECT_EQ(model->data(model->index(0, 4)).toString(), "1.000×");

  // Drag the first boundary (4 layers per stage: layer 4 -> 6): a what-if of the import.
  auto* editor = w.findChild<StageEditor*>();
  ASSERT_NE(editor, nullptr);
  emit editor->boundariesChanged("6,8,12");
  waitForHistory(history, 3);
  waitForRun(w);
  ASSERT_EQ(history->count(), 3) << w.lastError().toStdString();
  EXPECT_TRUE(history->item(2)->text().contains("of run 1"))
      << history->item(2)->text().toStdString();
  EXPECT_TRUE(table->isVisible());
  EXPECT_EQ(model->headerData(1, Qt::Horizontal).toString(), "A: run 1");
  // Stage 0 now holds 6 of 16 layers: the step is longer than the recorded one.
  EXPECT_NE(model->data(model->index(0, 4)).toString(), "1.000×");
  // Saved meanwhile: B is called by its file id, in the table and above its timeline.
  EXPECT_EQ(model->headerData(2, Qt::Horizontal).toString(), "B: run 3");
  auto* title = w.findChild<QLabel*>("compareTimelineTitle");
  ASSERT_NE(title, nullptr);
  EXPECT_TRUE(title->text().startsWith("B · run 3")) << title->text().toStdString();
}

}  // namespace
}  // namespace ps::ui
