// Escape clears a measured range (issue 34 item 20): a range dragged on the timeline's axis in
// the window, then Escape where the keyboard is (the timeline, or the run history clicked
// meanwhile), clears it.

#include <gtest/gtest.h>

#include <QApplication>
#include <QTest>

#include <QListWidget>
#include "tests/common/TestUtil.h"

#include "ui/MainWindow.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

TEST(RangeBandEscape, EscapeAfterDraggingOnTheAxisClearsTheRange) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("esc.sqlite"))));
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  TimelineView* view = w.timeline();
  const int y = TimelineView::kAxis / 2;
  QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, QPoint(TimelineView::kGutter + 100, y));
  QTest::mouseMove(view, QPoint(TimelineView::kGutter + 300, y));
  QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, QPoint(TimelineView::kGutter + 300, y));
  QTest::qWait(20);
  ASSERT_TRUE(view->hasRangeBand());
  QWidget* focus = QApplication::focusWidget();
  ASSERT_NE(focus, nullptr);
  QTest::keyClick(focus, Qt::Key_Escape);
  EXPECT_FALSE(view->hasRangeBand()) << "focus was on " << focus->objectName().toStdString();
  // Measured again, then the keyboard went to the run history (a click there): Escape there.
  view->setRangeBand({1000, 500000});
  auto* history = w.findChild<QListWidget*>("runHistory");
  history->setFocus();
  QTest::qWait(20);
  ASSERT_TRUE(view->hasRangeBand());
  QTest::keyClick(history, Qt::Key_Escape);
  EXPECT_FALSE(view->hasRangeBand()) << "Escape in the run history left the range";
}

}  // namespace
}  // namespace ps::ui
