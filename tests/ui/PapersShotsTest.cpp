// Screenshots of issue 34 items 12, 13 and 20 (Papers' families, Explore's refused rows and dark
// points, the Links and Explore columns, the View menu's zoom history, a sliced run's Stats), to
// look at: written only with PIPESCOPE_UI_SHOTS=DIR.

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <cstdlib>

#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/ExplorePanel.h"
#include "ui/MainWindow.h"

namespace ps::ui {
namespace {

void papersShotsMenu(QMenu* menu, const QString& path) {
  menu->popup({10, 10});
  QTest::qWait(50);
  menu->grab().save(path);
  menu->hide();
}

TEST(PapersShots, MenusDocksAndTheDarkExplorePlot) {
  const char* shots = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!shots) GTEST_SKIP() << "set PIPESCOPE_UI_SHOTS=DIR to write the screenshots";
  const QString dir = QString::fromLocal8Bit(shots) + "/";
  test::TempDir tmp;
  MainWindow w;
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(w.openDemo(QString::fromStdString(tmp.file("shots.sqlite"))));
  auto* papers = w.findChild<QMenu*>("papersMenu");
  papersShotsMenu(papers, dir + "papers-menu.png");
  papersShotsMenu(w.findChild<QMenu*>("papersFamily:Zero bubble"), dir + "papers-zero-bubble.png");
  papersShotsMenu(w.findChild<QMenu*>("papersFamily:Heterogeneous"),
                  dir + "papers-heterogeneous.png");
  for (QAction* a : w.menuBar()->actions())
    if (a->text() == "&View") papersShotsMenu(a->menu(), dir + "view-menu.png");

  w.findChild<QDockWidget*>("linkDock")->raise();
  QTest::qWait(50);
  w.grab().save(dir + "links-dock.png");

  w.findChild<QDockWidget*>("exploreDock")->raise();
  w.findChild<QAction*>("darkPaletteAction")->setChecked(true);
  auto* explore = w.findChild<ExplorePanel*>("explorePanel");
  runtime::RunPlanRequest base;
  base.spec.schedule = "1f1b";
  base.spec.stages = 4;
  base.spec.microbatches = 8;
  base.spec.layers = 4;
  base.spec.uniform.actMb = 1;
  QSignalSpy finished(explore, &ExplorePanel::finished);
  explore->explore(base);
  ASSERT_TRUE(finished.count() > 0 || finished.wait(120000));
  QTest::qWait(50);
  w.grab().save(dir + "explore-dark.png");
  explore->grab().save(dir + "explore-dark-dock.png");
  const int firstRefused = static_cast<int>(explore->result()->ranked.size());
  explore->table()->scrollToItem(explore->table()->item(firstRefused, 0),
                                 QAbstractItemView::PositionAtCenter);
  QTest::qWait(50);
  explore->grab().save(dir + "explore-dark-refused.png");
  w.findChild<QAction*>("darkPaletteAction")->setChecked(false);

  w.findChild<QAction*>("preset:terapipe")->trigger();
  test_window::waitForRun(w);
  QTest::qWait(50);
  w.grab().save(dir + "terapipe-stats.png");
}

}  // namespace
}  // namespace ps::ui
