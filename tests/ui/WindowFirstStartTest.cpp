// Issue 34 item 1: a new user's first start at 1280×720 shows Run and the primary knobs without
// scrolling, the demo's four ranks whole, and a status bar that says what to do first.

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTest>

#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/MainWindow.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

// Whether `widget` lies wholly inside the Plan dock's scroll viewport and the window.
void expectUnscrolled(const MainWindow& w, const char* name) {
  auto* widget = w.findChild<QWidget*>(name);
  auto* scroll = w.findChild<QScrollArea*>("planScroll");
  ASSERT_TRUE(widget && scroll) << name;
  EXPECT_TRUE(widget->isVisible()) << name;
  const QRect inViewport(widget->mapTo(scroll->viewport(), QPoint(0, 0)), widget->size());
  EXPECT_TRUE(scroll->viewport()->rect().contains(inViewport))
      << name << " at y " << inViewport.top() << ".." << inViewport.bottom() << " of a viewport "
      << scroll->viewport()->height() << " px tall";
  const QRect inWindow(widget->mapTo(&w, QPoint(0, 0)), widget->size());
  EXPECT_TRUE(w.rect().contains(inWindow)) << name;
}

TEST(FirstStartLayout, ShowsRunTheKnobsAndFourRanksAt1280x720) {
  QSettings().remove("mainWindow/geometry");  // a first start: no layout saved by other tests
  QSettings().remove("mainWindow/state");
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("demo.sqlite"))))
      << w.lastError().toStdString();
  w.resize(1280, 720);
  w.show();
  for (int i = 0; i < 5; ++i)
    QApplication::processEvents();
  for (const char* name :
       {"scheduleCombo", "stagesSpin", "microbatchesSpin", "chunksSpin", "layersSpin", "stepsSpin",
        "backendCombo", "linkSpin", "moreToggle", "rerunCheck", "runButton"})
    expectUnscrolled(w, name);
  TimelineView* timeline = w.timeline();
  EXPECT_EQ(timeline->visibleRanks().size(), 4u);
  EXPECT_EQ(timeline->maxVerticalOffset(), 0) << "every rank whole, no vertical scroll";
  EXPECT_TRUE(w.statusBar()->currentMessage().contains("Run (Ctrl+R)"))
      << w.statusBar()->currentMessage().toStdString();
}

// A Papers preset adds its teaching text above the report: the text takes room from the report,
// not from the timeline (it made the bottom dock 74 px taller and cut rank 3 of 1F1B's four).
TEST(FirstStartLayout, APresetsTeachingTextLeavesTheFourRanksWhole) {
  QSettings().remove("mainWindow/geometry");
  QSettings().remove("mainWindow/state");
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("demo.sqlite"))));
  w.resize(1280, 720);
  w.show();
  for (int i = 0; i < 5; ++i)
    QApplication::processEvents();
  auto* stats = w.findChild<QDockWidget*>("statsDock");
  ASSERT_NE(stats, nullptr);
  const int statsHeight = stats->height();
  w.findChild<QAction*>("preset:1f1b")->trigger();
  test_window::waitForRun(w);
  for (int i = 0; i < 5; ++i)
    QApplication::processEvents();
  ASSERT_FALSE(w.findChild<QWidget*>("teachingText")->isHidden()) << "the preset's text shows";
  EXPECT_LE(stats->height(), statsHeight) << "the bottom dock keeps its height";
  TimelineView* timeline = w.timeline();
  EXPECT_EQ(timeline->visibleRanks().size(), 4u);
  EXPECT_EQ(timeline->maxVerticalOffset(), 0) << "every rank whole, no vertical scroll";
}

TEST(FirstStartLayout, CtrlRAndF5RunThePlan) {
  QSettings().remove("mainWindow/state");
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("demo.sqlite"))));
  QAction* run = w.findChild<QAction*>("runAction");
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_R)));
  EXPECT_TRUE(run->shortcuts().contains(QKeySequence(Qt::Key_F5)));
  auto* button = w.findChild<QPushButton*>("runButton");
  int clicks = 0;
  QObject::connect(button, &QPushButton::clicked, [&clicks] { ++clicks; });
  run->trigger();
  EXPECT_EQ(clicks, 1);
  test_window::waitForRun(w);
}

}  // namespace
}  // namespace ps::ui
