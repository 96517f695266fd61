// Issue 34 item 20: the Links table's "busy %" and the Explore table's "peak", their last
// columns, stretched over the whole dock (a figure hundreds of pixels from its neighbours).
// The figures are sized to their contents; a descriptive column at the end takes the rest.

#include <gtest/gtest.h>

#include <QDockWidget>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include "tests/common/TestUtil.h"
#include "ui/ExplorePanel.h"
#include "ui/MainWindow.h"

namespace ps::ui {
namespace {

// Every column before the last sized to its contents; the last, a description, stretches.
void dockColumnsTestExpectFiguresFit(QHeaderView* header, const QString& last) {
  const int columns = header->count();
  ASSERT_GT(columns, 2);
  EXPECT_TRUE(header->stretchLastSection());
  EXPECT_EQ(header->model()->headerData(columns - 1, Qt::Horizontal).toString(), last);
  for (int c = 0; c + 1 < columns; ++c)
    EXPECT_EQ(header->sectionResizeMode(c), QHeaderView::ResizeToContents)
        << header->model()->headerData(c, Qt::Horizontal).toString().toStdString();
}

TEST(DockColumns, TheLinksFiguresFitTheirContentsAndTheTransfersColumnStretches) {
  test::TempDir dir;
  MainWindow w;
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("links.sqlite"))));
  w.findChild<QDockWidget*>("linkDock")->raise();
  QTest::qWait(20);
  auto* view = w.findChild<QTableView*>("linkTable");
  ASSERT_NE(view, nullptr);
  ASSERT_GT(view->model()->rowCount(), 0);
  dockColumnsTestExpectFiguresFit(view->horizontalHeader(), "transfers");
  const int busy = 4;
  ASSERT_EQ(view->model()->headerData(busy, Qt::Horizontal).toString(), "busy %");
  EXPECT_LT(view->horizontalHeader()->sectionSize(busy), 120);
  // The transfers of each link in words: the demo's 1F1B sends one activation or gradient per
  // micro-batch each way (8 each).
  EXPECT_TRUE(view->model()->index(0, 5).data().toString().contains("8 sends"))
      << view->model()->index(0, 5).data().toString().toStdString();
}

TEST(DockColumns, TheExplorePeakColumnFitsItsContentsAndTheNoteStretches) {
  ExplorePanel panel;
  panel.resize(1200, 300);
  panel.show();
  runtime::RunPlanRequest base;
  base.spec.schedule = "1f1b";
  base.spec.stages = 2;
  base.spec.microbatches = 4;
  base.spec.uniform.actMb = 1;
  QSignalSpy finished(&panel, &ExplorePanel::finished);
  panel.explore(base);
  ASSERT_TRUE(finished.count() > 0 || finished.wait(120000));
  QTableWidget* table = panel.table();
  ASSERT_GT(table->rowCount(), 0);
  dockColumnsTestExpectFiguresFit(table->horizontalHeader(), "note");
  const int peak = table->columnCount() - 2;
  ASSERT_EQ(table->horizontalHeaderItem(peak)->text(), "peak");
  EXPECT_LT(table->horizontalHeader()->sectionSize(peak), 120);
}

}  // namespace
}  // namespace ps::ui
