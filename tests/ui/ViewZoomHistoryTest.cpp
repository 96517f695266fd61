// Issue 34 item 20: the View menu lists the timeline's zoom history, Back (Alt+Left, Backspace)
// and Forward (Alt+Right), enabled when there is somewhere to go.

#include <gtest/gtest.h>

#include <QAction>
#include <QMenu>
#include <QMenuBar>

#include "tests/common/TestUtil.h"
#include "ui/MainWindow.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

TEST(ViewZoomHistory, BackAndForwardAreViewMenuActionsWithTheTimelinesKeys) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("zoom.sqlite"))));
  QMenu* view = nullptr;
  for (QAction* a : w.menuBar()->actions())
    if (a->text() == "&View") view = a->menu();
  ASSERT_NE(view, nullptr);
  auto* back = w.findChild<QAction*>("zoomBackAction");
  auto* forward = w.findChild<QAction*>("zoomForwardAction");
  ASSERT_NE(back, nullptr);
  ASSERT_NE(forward, nullptr);
  EXPECT_TRUE(view->actions().contains(back));
  EXPECT_TRUE(view->actions().contains(forward));
  EXPECT_EQ(back->shortcuts(), (QList<QKeySequence>{QKeySequence(Qt::ALT | Qt::Key_Left),
                                                    QKeySequence(Qt::Key_Backspace)}));
  EXPECT_EQ(forward->shortcut(), QKeySequence(Qt::ALT | Qt::Key_Right));

  TimelineView* timeline = w.timeline();
  EXPECT_FALSE(back->isEnabled());
  EXPECT_FALSE(forward->isEnabled());
  const TimeRange whole = timeline->visibleRange();
  const TimeRange zoomed{whole.start, whole.start + whole.length() / 4};
  timeline->zoomTo(zoomed);
  EXPECT_TRUE(back->isEnabled());
  back->trigger();
  EXPECT_EQ(timeline->visibleRange().start, whole.start);
  EXPECT_EQ(timeline->visibleRange().end, whole.end);
  EXPECT_FALSE(back->isEnabled());
  EXPECT_TRUE(forward->isEnabled());
  forward->trigger();
  EXPECT_EQ(timeline->visibleRange().end, zoomed.end);
}

}  // namespace
}  // namespace ps::ui
